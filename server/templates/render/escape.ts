/**
 * Data is data, never markup: what a template's `{{ … }}` outputs is escaped for the
 * document's language, so that `Demo | Shop {code:x}` or `^XA^FO…` in an order prints as
 * written. `| raw` as an output's last filter leaves it as it is (the template's choice).
 */

/** A Liquid output value as text: nothing for null, JSON for an object. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * ReceiptLine's special characters (`|` columns, `{…}` properties, `~` space, `^` size,
 * `` ` `` invert, `_` underline, `"` emphasis, `\` escape, `-` and `=` rules, and `;`, which
 * separates a property's members) each as a hex escape (`\x7c`); line breaks become spaces,
 * since a new line is a new row of the receipt. Hex, not a backslash before the character:
 * inside a property (`{code:…}`) ReceiptLine drops `\-` and the like, character and all,
 * and reads an unescaped `;` as the start of another member (`x:` would send raw commands).
 * In text both print the same.
 */
export function escapeReceiptLine(value: unknown): string {
  return textOf(value)
    .replace(/[\r\n\t\v\f]+/g, ' ')
    .replace(/[\\|{}~^`_"=;-]/g, (char) => `\\x${char.charCodeAt(0).toString(16)}`);
}

/**
 * ZPL field data, hex-escaped for `^FH_` (every `^FD` of a label gets one, `zpl.ts`): `^`,
 * `~`, `_`, control characters and everything past ASCII as `_XX` per UTF-8 byte, so that
 * no value can start a command. Line breaks become spaces.
 */
export function escapeZplField(value: unknown): string {
  let out = '';
  for (const char of textOf(value).replace(/[\r\n]+/g, ' ')) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '^' || char === '~' || char === '_' || code < 0x20 || code > 0x7e) {
      for (const byte of Buffer.from(char, 'utf8')) {
        out += `_${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }
    } else {
      out += char;
    }
  }
  return out;
}

/**
 * XML text and attribute values (ePOS-Print XML, `epos-print.ts`): `< > & " '` as character
 * references, and the characters XML 1.0 cannot hold at all (control characters other than
 * tab and line feeds, lone surrogates, U+FFFE and U+FFFF) as `?`, so that no value can end an
 * element, open one or make the document unreadable. Line breaks are kept.
 */
export function escapeXml(value: unknown): string {
  return textOf(value)
    .replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`)
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters XML 1.0 forbids.
      /[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      '?',
    );
}
