/**
 * A label template's document is ZPL. After Liquid (whose outputs are hex-escaped,
 * `escape.ts`), every field is made to decode them: `^FH_` goes before each `^FD` that has
 * no `^FH` of its own, and `^CI28` (UTF-8) after each `^XA` of a label that names no
 * character set, so that `_C3_A9` prints é.
 */
export function finishZpl(zpl: string): Buffer {
  let out = zpl.replace(/(\^FH.?)?\^FD/g, (match, fieldHex: string | undefined) =>
    fieldHex === undefined ? '^FH_^FD' : match,
  );
  if (!/\^CI/.test(out)) out = out.replace(/\^XA/g, '^XA^CI28');
  return Buffer.from(out, 'utf8');
}
