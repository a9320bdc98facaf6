/**
 * ePOS-Print XML's namespace, the `xmlns` of every `<epos-print>`: its own module, so that
 * Server Direct Print's protocol (server/cloudprnt/epson-sdp.ts) names it without loading
 * the drawing (ReceiptLine and the rest come with `epos-print.ts`).
 */
export const eposPrintNamespace = 'http://www.epson-pos.com/schemas/2011/03/epos-print';
