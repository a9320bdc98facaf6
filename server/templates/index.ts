/**
 * What other modules use of templates: ePOS-Print XML's escaping and namespace, for Epson's
 * Server Direct Print (server/cloudprnt/epson-sdp.ts). Light on purpose: the drawing
 * (ReceiptLine and the rest) loads with the first document drawn, not with this module.
 */
export { eposPrintNamespace } from './render/epos-print-namespace.ts';
export { escapeXml } from './render/escape.ts';
