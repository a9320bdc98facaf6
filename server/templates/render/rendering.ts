import type { PrinterLanguage } from '../../../shared/printer-profiles.ts';
import type { ContentType } from '../../../shared/printing.ts';

/** A document drawn: its bytes and what they are. */
export interface Rendering {
  contentType: string;
  bytes: Buffer;
}

/** The content type of the bytes each language prints. */
export const printerContentType: Record<PrinterLanguage, ContentType> = {
  escpos: 'application/vnd.escpos',
  starprnt: 'application/vnd.star.starprnt',
  zpl: 'application/vnd.zebra.zpl',
  pdf: 'application/pdf',
  text: 'text/plain',
  epos: 'application/vnd.epson.epos-print+xml',
};
