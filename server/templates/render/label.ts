import type { RefusalField } from './barcodes.ts';
import { checkLabelBarcodes } from './label-barcodes.ts';

/**
 * A label template's document is ZPL. After Liquid (whose outputs are hex-escaped,
 * `escape.ts`), every field is made to decode them: `^FH_` goes before each `^FD` that has
 * no `^FH` of its own, and `^CI28` (UTF-8) after each `^XA` of a label that names no
 * character set, so that `_C3_A9` prints é. Its barcodes' data is checked then
 * (`label-barcodes.ts`): a value outside a symbology is a 422 on `field`.
 */
export function finishZpl(zpl: string, field: RefusalField = 'data'): Buffer {
  let out = zpl.replace(/(\^FH.?)?\^FD/g, (match, fieldHex: string | undefined) =>
    fieldHex === undefined ? '^FH_^FD' : match,
  );
  if (!/\^CI/.test(out)) out = out.replace(/\^XA/g, '^XA^CI28');
  checkLabelBarcodes(out, field);
  return Buffer.from(out, 'utf8');
}
