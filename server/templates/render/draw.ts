/**
 * A rendered document drawn for a printer or a preview. render-document.ts loads this module
 * with the first document it draws (ReceiptLine, resvg, PDFKit, pngjs and iconv-lite come
 * with it), not at the server's start.
 */

import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../../shared/templates.ts';
import { checkBarcodes, type RefusalField } from './barcodes.ts';
import { receiptToEposPrint } from './epos-print.ts';
import { prepareImages } from './images.ts';
import { dotsOf, labelSize, labelToPng } from './label-png.ts';
import { receiptToPdf } from './pdf-receipt.ts';
import { bitmapToPng } from './png.ts';
import { bitmapToZpl } from './raster.ts';
import { receiptToBitmap } from './raster-receipt.ts';
import { columnsOf, receiptToPrinter, receiptToSvg, receiptToText } from './receipt.ts';
import { printerContentType, type Rendering } from './rendering.ts';
import { type DrawnText, drawScriptLines } from './script-lines.ts';

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

/** The text of the lines drawn as pictures, by picture (a PDF writes it over them). */
type Texts = Map<string, DrawnText[]>;

/** The receipt as what the profile's printer prints. */
async function receiptForPrinter(
  document: string,
  profile: PrinterProfile,
  texts: Texts,
): Promise<Rendering> {
  const contentType = printerContentType[profile.language];
  switch (profile.language) {
    case 'escpos':
    case 'starprnt':
      return { contentType, bytes: receiptToPrinter(document, profile) };
    case 'text':
      return { contentType, bytes: Buffer.from(receiptToText(document, profile), 'utf8') };
    case 'epos':
      return { contentType, bytes: Buffer.from(receiptToEposPrint(document, profile), 'utf8') };
    case 'pdf':
      return {
        contentType,
        bytes: await receiptToPdf(document, profile, pdfPaper(profile), texts),
      };
    case 'zpl':
      return {
        contentType,
        bytes: bitmapToZpl(await receiptToBitmap(document, profile, zplDots(profile))),
      };
  }
}

/** A receipt in a preview format; a code its symbology cannot hold is a 422 on `codeField`. */
export async function receiptAs(
  document: string,
  profile: PrinterProfile,
  format: PreviewFormat,
  codeField: RefusalField = 'data',
): Promise<Rendering> {
  // The same refusal of a barcode's data whatever the document is drawn as.
  checkBarcodes(document, codeField);
  // Every output draws the same dots of an image: scaled to the paper, dithered (images.ts);
  // lines in scripts the printer (or the previews' monospaced face) lacks, as pictures.
  const dots = columnsOf(profile) * 12;
  const texts: Texts = new Map();
  const drawn = await drawScriptLines(prepareImages(document, dots), profile, format, dots, texts);
  return receiptWithImages(drawn, profile, format, texts);
}

async function receiptWithImages(
  document: string,
  profile: PrinterProfile,
  format: PreviewFormat,
  texts: Texts,
): Promise<Rendering> {
  switch (format) {
    case 'raw':
      return receiptForPrinter(document, profile, texts);
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
        bytes: await receiptToPdf(document, profile, pdfPaper(profile), texts),
      };
    case 'text':
      return {
        contentType: 'text/plain; charset=utf-8',
        bytes: Buffer.from(receiptToText(document, profile), 'utf8'),
      };
  }
}

/** A label's ZPL as its picture, one pixel a dot of the profile's printer. */
export function labelAsPng(zpl: string, profile: PrinterProfile): Promise<Buffer> {
  return labelToPng(zpl, labelSize(zpl, labelDots(profile), dpiOf(profile)));
}
