import type { PrinterLanguage, PrinterProfile } from '../../shared/printer-profiles.ts';
import type { ContentType } from '../../shared/printing.ts';
import type { PreviewFormat, TemplateKind } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import { renderLiquid } from './liquid.ts';
import { checkImages } from './render/images.ts';
import { finishZpl } from './render/label.ts';
import { dotsOf, labelSize, labelToPng } from './render/label-png.ts';
import { receiptToPdf } from './render/pdf-receipt.ts';
import { bitmapToPng } from './render/png.ts';
import { bitmapToZpl } from './render/raster.ts';
import { receiptToBitmap } from './render/raster-receipt.ts';
import { columnsOf, receiptToPrinter, receiptToSvg, receiptToText } from './render/receipt.ts';

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
const zplDots = (profile: PrinterProfile) =>
  dotsOf((profile.width_mm as number | undefined) ?? 50, dpiOf(profile));

/** A label's width in dots: a zpl profile's label, else (a receipt printer's) a 50 mm label. */
const labelDots = (profile: PrinterProfile) =>
  profile.language === 'zpl' ? zplDots(profile) : dotsOf(50, dpiOf(profile));

/** A receipt's paper for a PDF: the profile's sheet or roll, else its roll width. */
const pdfPaper = (profile: PrinterProfile) =>
  profile.width_mm ?? (profile.language === 'pdf' ? 'a4' : 80);

/** A receipt's pixels across at the profile's resolution (ReceiptLine: 12 dots a column at 203 dpi). */
const pngWidth = (profile: PrinterProfile) =>
  profile.language === 'zpl'
    ? zplDots(profile)
    : Math.round((columnsOf(profile) * 12 * dpiOf(profile)) / 203);

/** The receipt as what the profile's printer prints. */
async function receiptForPrinter(document: string, profile: PrinterProfile): Promise<Rendering> {
  const contentType = printerContentType[profile.language];
  switch (profile.language) {
    case 'escpos':
    case 'starprnt':
      return { contentType, bytes: receiptToPrinter(document, profile) };
    case 'text':
      return { contentType, bytes: Buffer.from(receiptToText(document, profile), 'utf8') };
    case 'pdf':
      return {
        contentType,
        bytes: await receiptToPdf(document, profile, pdfPaper(profile)),
      };
    case 'zpl':
      return {
        contentType,
        bytes: bitmapToZpl(await receiptToBitmap(document, profile, zplDots(profile))),
      };
  }
}

/** A receipt in a preview format. */
async function receiptAs(
  document: string,
  profile: PrinterProfile,
  format: PreviewFormat,
): Promise<Rendering> {
  switch (format) {
    case 'raw':
      return receiptForPrinter(document, profile);
    case 'svg':
      return { contentType: 'image/svg+xml', bytes: Buffer.from(receiptToSvg(document, profile)) };
    case 'png':
      return {
        contentType: 'image/png',
        bytes: bitmapToPng(await receiptToBitmap(document, profile, pngWidth(profile))),
      };
    case 'pdf':
      return {
        contentType: 'application/pdf',
        bytes: await receiptToPdf(document, profile, pdfPaper(profile)),
      };
    case 'text':
      return {
        contentType: 'text/plain; charset=utf-8',
        bytes: Buffer.from(receiptToText(document, profile), 'utf8'),
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
    return receiptAs(document, profile, format);
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
    const zpl = bytes.toString('utf8');
    const size = labelSize(zpl, labelDots(profile), dpiOf(profile));
    return { contentType: 'image/png', bytes: await labelToPng(zpl, size) };
  }
  return {
    contentType: format === 'raw' ? printerContentType.zpl : 'text/plain; charset=utf-8',
    bytes,
  };
}
