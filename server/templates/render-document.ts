import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { PreviewFormat, TemplateKind } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import { checkDataStrings } from './data-limits.ts';
import { renderLiquid, type TemplateAssets } from './liquid.ts';
import type { RefusalField } from './render/barcodes.ts';
import { checkDocument } from './render/document-limits.ts';
import { finishZpl } from './render/label.ts';
import { printerContentType, type Rendering } from './render/rendering.ts';

/**
 * The drawing, and what it loads (ReceiptLine, resvg, PDFKit, pngjs, iconv-lite: ~0.3 s of
 * CPU), comes with the first document drawn, not with every start of a server or a command.
 */
let drawing: Promise<typeof import('./render/draw.ts')> | undefined;
const draw = () => (drawing ??= import('./render/draw.ts'));

/** Loads the drawing now: a render thread does before its first render's budget starts. */
export const loadDrawing = async (): Promise<void> => {
  await draw();
};

/** What is rendered: a version's kind, source and images (`{% image "logo" %}`). */
export interface TemplateSource {
  kind: TemplateKind;
  source: string;
  assets?: TemplateAssets;
}

/** The profile of a preview that names none: an 80 mm ESC/POS printer. */
export const defaultProfile: PrinterProfile = { language: 'escpos', width_mm: 80 };

/**
 * Output pixels a ReceiptLine dot, where a receipt is drawn as a bitmap (a PNG, a ZPL
 * graphic): the profile's dpi against ReceiptLine's 203.
 */
const drawnScale = (profile: PrinterProfile, format: PreviewFormat) =>
  format === 'png' || (format === 'raw' && profile.language === 'zpl')
    ? (profile.dpi ?? 203) / 203
    : 1;

/**
 * The template rendered with the data for the profile, in `format` (`raw`: the printer's
 * bytes), in the calling thread: the server calls it on a render thread only
 * (`render-pool.ts`). The data's strings and the rendered document are bounded before
 * ReceiptLine or a drawing sees them (`data-limits.ts`, `render/document-limits.ts`). A label (ZPL) prints on `zpl` routes only and previews as its ZPL (`raw`, `text`)
 * or as a picture (`png`, drawn from the ZPL: `render/label-png.ts`).
 * Refusals are 422s: on `source` (Liquid syntax, a label that cannot be drawn), `data`
 * (limits), `profile`, `format`; a barcode or QR code its symbology cannot hold, on
 * `codeField` (`data`, or on a render thread the path of the data it came from), checked
 * before any bytes are made.
 */
export async function renderDocument(
  template: TemplateSource,
  data: object,
  profile: PrinterProfile,
  format: PreviewFormat,
  codeField: RefusalField = 'data',
): Promise<Rendering> {
  checkDataStrings(data);
  const document = renderLiquid(template.kind, template.source, data, undefined, template.assets);
  if (template.kind === 'receipt') {
    checkDocument(document, 'data', drawnScale(profile, format));
    const { receiptAs } = await draw();
    return receiptAs(document, profile, format, codeField);
  }
  if (format === 'raw' && profile.language !== 'zpl') {
    throw invalidField('profile', 'A label template prints on a zpl printer only.');
  }
  if (format === 'svg' || format === 'pdf') {
    throw invalidField(
      'format',
      'A label template previews as png (its picture), or raw or text (its ZPL).',
    );
  }
  const bytes = finishZpl(document, codeField);
  if (format === 'png') {
    const { labelAsPng } = await draw();
    return { contentType: 'image/png', bytes: await labelAsPng(bytes.toString('utf8'), profile) };
  }
  return {
    contentType: format === 'raw' ? printerContentType.zpl : 'text/plain; charset=utf-8',
    bytes,
  };
}
