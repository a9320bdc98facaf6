import type { TemplateKind } from '../../shared/templates.ts';
import { InvalidFields } from '../domain-errors.ts';
import { eventLoopRenderLimitMs, renderLiquid, type TemplateAssets } from './liquid.ts';
import { checkBarcodes, dataPathOf, mayHoldCode, type RefusalField } from './render/barcodes.ts';
import { checkDocument } from './render/document-limits.ts';
import { finishZpl } from './render/label.ts';

/** What is checked: a version's kind and source. */
interface CodeSource {
  kind: TemplateKind;
  source: string;
  assets?: TemplateAssets;
}

/** Whether a template's source writes a barcode or QR code (`{code:…}`, a `^B…` field). */
const writesCodes = ({ kind, source }: CodeSource) =>
  kind === 'receipt' ? mayHoldCode(source) : /\^B/i.test(source);

/**
 * The barcodes and QR codes of a rendered document checked against their symbologies
 * (`render/barcodes.ts`, `render/label-barcodes.ts`): a value outside one is a 422 on `field`.
 */
export function checkCodes(kind: TemplateKind, document: string, field: RefusalField): void {
  if (kind === 'receipt') checkBarcodes(document, field);
  else finishZpl(document, field);
}

/**
 * A job's data checked against the barcodes of its template when the job is created, so
 * that an order reference a barcode cannot hold is a 422 naming the data's path
 * (`data.order.reference`) rather than a job that fails at its claim. Only a template whose
 * source writes a code runs here: Liquid, then ReceiptLine reading the document with a
 * command set that draws nothing (the worked example's shop receipt: ~0.8 ms, 2026-11-28,
 * 2-core shared machine at a load of ~14, Node 24.21). One that makes its codes some other
 * way (`| raw`) is checked at its render, as every template is. Data past the render's
 * limits is left to the claim, which fails it with the reason as for any template job
 * (docs/templates.md).
 */
export function checkJobCodes(version: CodeSource, data: Record<string, unknown>): void {
  if (!writesCodes(version)) return;
  let document: string;
  try {
    document = renderLiquid(
      version.kind,
      version.source,
      data,
      undefined,
      version.assets,
      eventLoopRenderLimitMs,
    );
  } catch (error) {
    if (error instanceof InvalidFields) return;
    throw error;
  }
  // ReceiptLine reads only a document within the render's bounds (lines, text, codes): one
  // past them is left to the render, which refuses it on its thread.
  try {
    checkDocument(document, 'data');
  } catch (error) {
    if (error instanceof InvalidFields) return;
    throw error;
  }
  checkCodes(version.kind, document, (symbol) => dataPathOf(data, symbol));
}
