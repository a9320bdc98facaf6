import type { PrinterLanguage, PrinterProfile } from '../../shared/printer-profiles.ts';
import type { ContentType } from '../../shared/printing.ts';
import type { PreviewFormat, TemplateKind } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import { renderLiquid } from './liquid.ts';
import { checkImages } from './render/images.ts';
import { finishZpl } from './render/label.ts';

type Renderers = typeof import('./render/renderers.ts');

/**
 * The renderers, and what they load (ReceiptLine, resvg, PDFKit, pngjs, iconv-lite: ~0.3 s of
 * CPU), come with the first document drawn, not with every start of a server or a command.
 */
let renderers: Promise<Renderers> | undefined;
const loadRenderers = (): Promise<Renderers> => (renderers ??= import('./render/renderers.ts'));

/** What is rendered: a version's kind and source. */
export interface TemplateSource {
  kind: TemplateKind;
  source: string;
}

export interface Rendering {
  contentType: string;
  bytes: Buffer;
}

/** The profile of a preview that names none: an 80 mm ESC/POS printer. */
export const defaultProfile: PrinterProfile = { language: 'escpos', width_mm: 80 };

/** The content type of the bytes each language prints. */
export const printerContentType: Record<PrinterLanguage, ContentType> = {
  escpos: 'application/vnd.escpos',
  starprnt: 'application/vnd.star.starprnt',
  zpl: 'application/vnd.zebra.zpl',
  pdf: 'application/pdf',
  text: 'text/plain',
};

const dpiOf = (profile: PrinterProfile) => profile.dpi ?? 203;

/** Dots across a label printer's head for the profile (a 50 mm label at 203 dpi: 400). */
const zplDots = ({ dotsOf }: Renderers, profile: PrinterProfile) =>
  dotsOf((profile.width_mm as number | undefined) ?? 50, dpiOf(profile));

/** A label's width in dots: a zpl profile's label, else (a receipt printer's) a 50 mm label. */
const labelDots = (r: Renderers, profile: PrinterProfile) =>
  profile.language === 'zpl' ? zplDots(r, profile) : r.dotsOf(50, dpiOf(profile));

/** A receipt's paper for a PDF: the profile's sheet or roll, else its roll width. */
const pdfPaper = (profile: PrinterProfile) =>
  profile.width_mm ?? (profile.language === 'pdf' ? 'a4' : 80);

/** A receipt's pixels across at the profile's resolution (ReceiptLine: 12 dots a column at 203 dpi). */
const pngWidth = (r: Renderers, profile: PrinterProfile) =>
  profile.language === 'zpl'
    ? zplDots(r, profile)
    : Math.round((r.columnsOf(profile) * 12 * dpiOf(profile)) / 203);

/** The receipt as what the profile's printer prints. */
async function receiptForPrinter(
  r: Renderers,
  document: string,
  profile: PrinterProfile,
): Promise<Rendering> {
  const contentType = printerContentType[profile.language];
  switch (profile.language) {
    case 'escpos':
    case 'starprnt':
      return { contentType, bytes: r.receiptToPrinter(document, profile) };
    case 'text':
      return { contentType, bytes: Buffer.from(r.receiptToText(document, profile), 'utf8') };
    case 'pdf':
      return {
        contentType,
        bytes: await r.receiptToPdf(document, profile, pdfPaper(profile)),
      };
    case 'zpl':
      return {
        contentType,
        bytes: r.bitmapToZpl(await r.receiptToBitmap(document, profile, zplDots(r, profile))),
      };
  }
}

/** A receipt in a preview format. */
async function receiptAs(
  r: Renderers,
  document: string,
  profile: PrinterProfile,
  format: PreviewFormat,
): Promise<Rendering> {
  switch (format) {
    case 'raw':
      return receiptForPrinter(r, document, profile);
    case 'svg':
      return {
        contentType: 'image/svg+xml',
        bytes: Buffer.from(r.receiptToSvg(document, profile)),
      };
    case 'png':
      return {
        contentType: 'image/png',
        bytes: r.bitmapToPng(await r.receiptToBitmap(document, profile, pngWidth(r, profile))),
      };
    case 'pdf':
      return {
        contentType: 'application/pdf',
        bytes: await r.receiptToPdf(document, profile, pdfPaper(profile)),
      };
    case 'text':
      return {
        contentType: 'text/plain; charset=utf-8',
        bytes: Buffer.from(r.receiptToText(document, profile), 'utf8'),
      };
  }
}

/**
 * The template rendered with the data for the profile, in `format` (`raw`: the printer's
 * bytes). A label (ZPL) prints on `zpl` routes only and previews as its ZPL (`raw`, `text`)
 * or as a picture (`png`, drawn from the ZPL: `render/label-png.ts`).
 * Refusals are 422s: on `source` (Liquid syntax, a label that cannot be drawn), `data`
 * (limits), `profile`, `format`.
 */
export async function renderDocument(
  template: TemplateSource,
  data: object,
  profile: PrinterProfile,
  format: PreviewFormat,
): Promise<Rendering> {
  const document = renderLiquid(template.kind, template.source, data);
  if (template.kind === 'receipt') {
    checkImages(document, 'data');
    return receiptAs(await loadRenderers(), document, profile, format);
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
  const bytes = finishZpl(document);
  if (format === 'png') {
    const r = await loadRenderers();
    const zpl = bytes.toString('utf8');
    const size = r.labelSize(zpl, labelDots(r, profile), dpiOf(profile));
    return { contentType: 'image/png', bytes: await r.labelToPng(zpl, size) };
  }
  return {
    contentType: format === 'raw' ? printerContentType.zpl : 'text/plain; charset=utf-8',
    bytes,
  };
}
