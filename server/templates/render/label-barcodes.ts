import { type RefusalField, refuseBadCode } from './barcodes.ts';

/**
 * A label's barcodes checked as a receipt's are (`barcodes.ts`). In ZPL a barcode is a field:
 * a `^B…` command, then its data in `^FD…^FS`. The data of a template's output cannot end
 * the field (`^` and `~` are hex-escaped, `escape.ts`), but a value outside the symbology
 * would print a wrong or no barcode; so each field's data, its `^FH` escapes decoded, is
 * checked against the symbology of its `^B…` command (Zebra's ZPL II programming guide).
 */

/** Each linear barcode command and the rule of `barcodes.ts` its data follows. */
const linear: Record<string, string> = {
  B1: 'code11',
  B2: 'digits', // Interleaved 2 of 5: the printer puts a 0 before an odd count
  B3: 'code39',
  B5: 'digits', // Planet Code
  B8: 'ean8',
  B9: 'digits', // UPC-E
  BA: 'code93',
  BC: 'code128',
  BE: 'ean13',
  BI: 'digits', // Industrial 2 of 5
  BJ: 'digits', // Standard 2 of 5
  BK: 'codabar',
  BL: 'code39', // LOGMARS
  BM: 'digits', // MSI
  BP: 'plessey',
  BS: 'digits', // UPC/EAN extensions
  BU: 'upca',
  BZ: 'digits', // POSTNET and other postal codes
};

/**
 * 2D codes and stacked symbologies: any bytes (the printer, and the preview, refuse what
 * does not fit the symbol), so their fields are not checked.
 */
const twoDimensional = new Set(['B0', 'B4', 'B7', 'BB', 'BD', 'BF', 'BO', 'BQ', 'BR', 'BT', 'BX']);

/** A ZPL command: its prefix (`^`, `~`) and two letters, then its parameters. */
const command = /([\^~])([A-Za-z@][A-Za-z0-9@])([^^~]*)/g;

/** Field data as bytes (a character each), its `^FH` escapes (`_1E`) decoded. */
function decoded(data: string, indicator: string | undefined): string {
  const bytes = Buffer.from(data, 'utf8').toString('latin1');
  if (indicator === undefined) return bytes;
  const hexEscape = new RegExp(
    `${indicator.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}([0-9A-Fa-f]{2})`,
    'g',
  );
  return bytes.replace(hexEscape, (_, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
}

/**
 * Every barcode field of the ZPL checked (a 422 on `field`). `^FH` (its indicator, `_` by
 * default) and the barcode command hold until the field's `^FS`.
 */
export function checkLabelBarcodes(zpl: string, field: RefusalField = 'data'): void {
  if (!/\^B/i.test(zpl)) return;
  let barcode: string | undefined;
  let indicator: string | undefined;
  for (const [, , name, parameters] of zpl.matchAll(command)) {
    const code = name!.toUpperCase();
    if (code === 'FS') {
      barcode = undefined;
      indicator = undefined;
    } else if (code === 'FH') {
      indicator = parameters!.charAt(0) || '_';
    } else if (code in linear || twoDimensional.has(code)) {
      barcode = code;
    } else if ((code === 'FD' || code === 'FV') && barcode !== undefined && barcode in linear) {
      refuseBadCode({ data: decoded(parameters!, indicator), type: linear[barcode]! }, field);
    }
  }
}
