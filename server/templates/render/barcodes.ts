import { createRequire } from 'node:module';
import { invalidField } from '../../domain-errors.ts';

/**
 * Barcode and QR data stays data. ReceiptLine hands each `{code:…}` to the printer's command
 * set as it is, and the printers do not all count it: StarPRNT's `ESC b … RS` ends a barcode
 * at the first RS (0x1E) and runs what follows as commands, and ESC/POS's `GS k` passes a
 * byte outside the symbology's set on as ordinary data. So every barcode's data is checked
 * against its symbology's characters (and length) before a command is made, whatever the
 * printer: a value outside them is refused, never printed in part. A QR code takes any
 * bytes: its commands are length-counted (ESC/POS `GS ( k`) or a drawn image (StarPRNT),
 * so only its length is checked, against what a QR code can hold.
 */

/** A barcode or QR code as ReceiptLine gives it to a command set. */
export interface CodeSymbol {
  data: string;
  type: string;
  level?: string;
}

/** Characters a linear barcode may hold: wider than any roll at its narrowest bars. */
export const maxBarcodeLength = 80;

/**
 * Bytes a QR code (version 40, byte mode) holds at each error-correction level (ISO/IEC
 * 18004, table 7); its ESC/POS command counts them in two bytes, which this keeps far below.
 */
export const qrCapacity: Record<string, number> = { l: 2953, m: 2331, q: 1663, h: 1273 };

interface Rule {
  /** What the symbology takes, as docs/templates.md says it. */
  takes: string;
  test: RegExp;
  /** The characters it takes at all, to name the first one it does not. */
  characters: RegExp;
}

const digits = /\d/;

/**
 * Each of ReceiptLine's symbologies: the values its own drawing accepts, which are also
 * within what Epson's `GS k` and Star's `ESC b` take for that symbology.
 */
const rules: Record<string, Rule> = {
  upc: {
    takes: 'UPC-A: 11 or 12 digits; UPC-E: 7 or 8 digits starting with 0',
    test: /^(?:\d{11,12}|0\d{6,7})$/,
    characters: digits,
  },
  ean: {
    takes: 'EAN-13: 12 or 13 digits; EAN-8: 7 or 8 digits',
    test: /^(?:\d{12,13}|\d{7,8})$/,
    characters: digits,
  },
  code39: {
    takes: 'digits, capital letters A-Z, space and - . $ / + %, and * only first and last',
    test: /^\*?[0-9A-Z\-. $/+%]+\*?$/,
    characters: /[0-9A-Z\-. $/+%*]/,
  },
  itf: { takes: 'an even number of digits', test: /^(?:\d\d)+$/, characters: digits },
  codabar: {
    takes: 'a start letter A-D, then digits and - $ : / . +, then a stop letter A-D',
    test: /^[A-Da-d][0-9\-$:/.+]+[A-Da-d]$/,
    characters: /[0-9A-Da-d\-$:/.+]/,
  },
  code93: {
    takes: 'printable ASCII (space to ~)',
    test: /^[\x20-\x7e]+$/,
    characters: /[\x20-\x7e]/,
  },
  code128: {
    takes: 'ASCII (0x00 to 0x7F)',
    test: /^[^\u0080-\u{10ffff}]+$/u,
    characters: /[^\u0080-\u{10ffff}]/u,
  },
};
rules.jan = rules.ean!;
rules.nw7 = rules.codabar!;

/** The symbologies only labels (ZPL) print, beside those above. */
Object.assign(rules, {
  ean13: { takes: '12 or 13 digits', test: /^\d{12,13}$/, characters: digits },
  ean8: { takes: '7 or 8 digits', test: /^\d{7,8}$/, characters: digits },
  upca: { takes: '11 or 12 digits', test: /^\d{11,12}$/, characters: digits },
  digits: { takes: 'digits', test: /^\d+$/, characters: digits },
  code11: { takes: 'digits and -', test: /^[\d-]+$/, characters: /[\d-]/ },
  plessey: { takes: 'digits and A-F', test: /^[\dA-F]+$/, characters: /[\dA-F]/ },
} satisfies Record<string, Rule>);

/** A value as a message shows it: JSON-quoted (control characters as \u…), cut at 40. */
function shown(value: string): string {
  const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return JSON.stringify(cut);
}

const codeOf = (char: string) =>
  `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * What is wrong with the symbol's data, or nothing. Empty data is no barcode (ReceiptLine
 * prints none), not a problem.
 */
export function barcodeProblem(symbol: CodeSymbol): string | undefined {
  const { data, type } = symbol;
  if (data === '') return undefined;
  if (type === 'qrcode') {
    const limit = qrCapacity[symbol.level ?? 'l'] ?? qrCapacity.l!;
    const bytes = Buffer.byteLength(data, 'utf8');
    return bytes > limit
      ? `The QR code's data is ${bytes} bytes; at level ${(symbol.level ?? 'l').toUpperCase()} it holds at most ${limit}.`
      : undefined;
  }
  const rule = rules[type];
  if (!rule) return `The barcode type ${type} is not known.`;
  const where = `The ${type} barcode cannot hold ${shown(data)}`;
  if ([...data].length > maxBarcodeLength) {
    return `${where}: it holds at most ${maxBarcodeLength} characters.`;
  }
  if (rule.test.test(data)) return undefined;
  const outside = [...data].find((char) => !rule.characters.test(char));
  return outside === undefined
    ? `${where}: it takes ${rule.takes}.`
    : `${where}: ${codeOf(outside)} is not one of its characters (it takes ${rule.takes}).`;
}

/**
 * Where a refusal is reported: a field, or the field for the code refused (at a job's
 * creation, the path of the data the barcode's value came from: `dataPathOf`).
 */
export type RefusalField = string | ((symbol: CodeSymbol) => string);

/** Refuses the symbol (a 422 on its field) when its data is outside its symbology. */
export function refuseBadCode(symbol: CodeSymbol, field: RefusalField): void {
  const problem = barcodeProblem(symbol);
  if (problem === undefined) return;
  throw invalidField(typeof field === 'string' ? field : field(symbol), problem);
}

/** What a command set's `barcode` and `qrcode` are given (ReceiptLine's symbol, its encoding). */
type CodeCommand = (this: unknown, symbol: CodeSymbol, encoding: unknown) => string;

/**
 * The command set (ReceiptLine's, or one of ours) with its barcodes and QR codes checked
 * first: a problem is a 422 on `field` (at a claim, the job's `template_render_failed` with
 * the message), and nothing of the code is made.
 */
export function checkedCodes<T extends object>(command: T, field: RefusalField = 'data'): T {
  const codes = command as unknown as { barcode: CodeCommand; qrcode: CodeCommand };
  // ReceiptLine calls a command on its own copy of the set, whose state (`this.upsideDown`,
  // the margins) the command reads: `this` is passed on.
  const checked = (make: CodeCommand): CodeCommand =>
    function (this: unknown, symbol, encoding) {
      refuseBadCode(symbol, field);
      return make.call(this, symbol, encoding);
    };
  return { ...command, barcode: checked(codes.barcode), qrcode: checked(codes.qrcode) };
}

/** Every string of the data with its path (`data.order.reference`), depth first. */
function* stringsOf(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, `${path}.${key}`);
  }
}

/**
 * The path of the data a refused code's value came from, for the 422 at a job's creation:
 * the first string of the data within the value that holds a character the symbology does
 * not take, else the first that is the whole value; `field` when none is (the value was
 * put together by the template).
 */
export function dataPathOf(data: unknown, symbol: CodeSymbol, field = 'data'): string {
  const characters = rules[symbol.type]?.characters;
  let whole: string | undefined;
  for (const [path, text] of stringsOf(data, field)) {
    const folded = text.replace(/[\r\n\t\v\f]+/g, ' ');
    // A label's field is bytes, a character each: the value is looked for as its UTF-8 too.
    for (const value of new Set([folded, Buffer.from(folded, 'utf8').toString('latin1')])) {
      if (value === '' || !symbol.data.includes(value)) continue;
      if (characters && [...value].some((char) => !characters.test(char))) return path;
      if (value === symbol.data) whole ??= path;
    }
  }
  return whole ?? field;
}

/** A ReceiptLine property naming a code (`code:` or its abbreviation `c:`). */
const codeProperty = /[{;][\t ]*c(?:ode)?[\t ]*:/;

/** Whether a receipt's text (a template's source, or a rendered document) may hold a code. */
export const mayHoldCode = (text: string) => codeProperty.test(text);

type ReceiptLine = typeof import('receiptline');
let receiptline: ReceiptLine | undefined;
/** ReceiptLine is loaded by the first document with a code, not at start (it is CommonJS). */
const receiptlineOf = () =>
  (receiptline ??= createRequire(import.meta.url)('receiptline') as ReceiptLine);

/**
 * Every barcode and QR code of a receipt document checked, whatever it is printed on (the
 * same refusal for a preview's picture as for the printer's bytes): ReceiptLine reads the
 * document with a command set that draws nothing, so each code is seen exactly as a printer's
 * command set would get it. A problem is a 422 on `field`.
 */
export function checkBarcodes(document: string, field: RefusalField = 'data'): void {
  if (!mayHoldCode(document)) return;
  const rl = receiptlineOf();
  rl.transform(document, { command: checkedCodes(rl.commands.base, field) });
}
