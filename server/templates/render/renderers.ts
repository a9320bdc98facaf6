/**
 * What render-document.ts draws with. It loads this module with the first document it draws
 * (ReceiptLine, resvg, PDFKit, pngjs and iconv-lite come with it), not at the server's start.
 */
export { dotsOf, labelSize, labelToPng } from './label-png.ts';
export { receiptToPdf } from './pdf-receipt.ts';
export { bitmapToPng } from './png.ts';
export { bitmapToZpl } from './raster.ts';
export { receiptToBitmap } from './raster-receipt.ts';
export { columnsOf, receiptToPrinter, receiptToSvg, receiptToText } from './receipt.ts';
