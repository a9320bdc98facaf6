import iconv from 'iconv-lite';
import type { Codepage, Multibyte } from '../../../shared/printer-profiles.ts';

/**
 * Text outside the printer's code page is transliterated, or replaced visibly with `?`:
 * never dropped. First the common typographic characters (quotes, dashes, €), then the
 * letter without its accents (NFKD: é → e, ŝ → s), then `?`.
 */
const spelled: Record<string, string> = {
  '€': 'EUR',
  '£': 'GBP',
  '‘': "'",
  '’': "'",
  '‚': ',',
  '“': '"',
  '”': '"',
  '„': '"',
  '–': '-',
  '—': '-',
  '…': '...',
  '•': '*',
  '×': 'x',
  ß: 'ss',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  '\u00a0': ' ',
};

const encodable = new Map<string, Map<string, boolean>>();

function canEncode(codepage: Codepage | Multibyte, char: string): boolean {
  let known = encodable.get(codepage);
  if (!known) {
    known = new Map();
    encodable.set(codepage, known);
  }
  let answer = known.get(char);
  if (answer === undefined) {
    answer = iconv.decode(iconv.encode(char, codepage), codepage) === char;
    known.set(char, answer);
  }
  return answer;
}

/** The character as the code page can print it. */
function transliterate(codepage: Codepage | Multibyte, char: string): string {
  const spelledOut = spelled[char];
  if (spelledOut !== undefined && [...spelledOut].every((c) => canEncode(codepage, c))) {
    return spelledOut;
  }
  const bare = char.normalize('NFKD').replace(/\p{M}/gu, '');
  if (bare !== '' && bare !== char && [...bare].every((c) => canEncode(codepage, c))) return bare;
  return '?';
}

/**
 * Whether the printer prints the character as text in the code page (or multibyte mode):
 * it holds it, or (with `transliterated`) holds its transliteration; not `?`.
 */
export function printsAsText(
  codepage: Codepage | Multibyte,
  char: string,
  transliterated = true,
): boolean {
  if (char.charCodeAt(0) < 0x80 || canEncode(codepage, char)) return true;
  return transliterated && transliterate(codepage, char) !== '?';
}

/**
 * The text with every character the code page lacks transliterated or replaced with `?`.
 * `escapeReplacement` is applied to what replaces a character: `“` becomes `"`, which ReceiptLine would
 * read as markup unless escaped.
 */
export function toCodepage(
  text: string,
  codepage: Codepage | Multibyte,
  escapeReplacement: (replacement: string) => string = (replacement) => replacement,
): string {
  // ASCII is in every code page offered: the usual receipt needs no look-up at all.
  if (/^[\x20-\x7e\r\n\t]*$/.test(text)) return text;
  let out = '';
  for (const char of text) {
    out +=
      char.charCodeAt(0) < 0x80 || canEncode(codepage, char)
        ? char
        : escapeReplacement(transliterate(codepage, char));
  }
  return out;
}
