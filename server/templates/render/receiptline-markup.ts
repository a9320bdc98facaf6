import { eastAsianWidth } from 'get-east-asian-width';

/**
 * ReceiptLine's markup read as ReceiptLine reads it, for the layout by words that runs before
 * it (column-layout.ts): a line's columns and their alignment, a column's characters with
 * their escapes and `^` scales, the state `{width:…}`, `{border:…}` and `{text:…}` carry
 * from line to line, the widths ReceiptLine gives columns, and how a row of a column ends.
 *
 * This is the one adapter over ReceiptLine's layout: it follows receiptline's `parseLine`,
 * `createLine` and `wrapText` (lib/receiptline.js, 4.0) without importing or patching them,
 * and test/templates/column-layout.test.ts pins what it relies on against the package (the
 * widths, `\n` in a column, a row that fills its column, a `{width:…}` line printing nothing).
 */

/** ReceiptLine's state across lines that the layout depends on. */
export interface LayoutState {
  wrap: boolean;
  border: number;
  /** Widths set by `{width:…}`: `-1` for `*`; empty for `auto`. */
  width: number[];
}

/** A piece of a column's markup, as ReceiptLine reads it. */
export type Token =
  | { kind: 'char'; raw: string; value: string; width: number; cells: number; space: boolean }
  | { kind: 'scale'; raw: string; level: number }
  | { kind: 'mark'; raw: string }
  | { kind: 'break'; raw: string };

export type CharToken = Extract<Token, { kind: 'char' }>;

/** Characters ReceiptLine reads as themselves after a backslash. */
const escapable = '\\{|}-=_"`^~';

/** Display columns of a character: 2 for East Asian wide and fullwidth ones, else 1. */
export function charWidth(char: string): number {
  return eastAsianWidth(char.codePointAt(0) ?? 0);
}

/** Display columns of plain text (no markup). */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += charWidth(char);
  return width;
}

/** A control character: ReceiptLine removes it from text. */
const isControl = (c: string) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;

/** A horizontal scale of `^` text, as ReceiptLine computes it from the run's length. */
export const horizontal = (wh: number) => (wh < 2 ? wh + 1 : wh - 1);

/** A column's text as tokens, each character's width at the scale it prints in. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let wh = 0;
  const char = (raw: string, value: string) => {
    const scale = horizontal(wh);
    tokens.push({
      kind: 'char',
      raw,
      value,
      width: charWidth(value) * scale,
      cells: scale,
      space: raw === ' ',
    });
  };
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === 'x') {
        const hex = text.slice(i + 2, i + 4);
        const raw = text.slice(i, i + 4);
        i += raw.length;
        const code = /^[\dA-Fa-f]{2}$/.test(hex) ? Number.parseInt(hex, 16) : -1;
        // A control character (or an invalid escape) prints nothing.
        if (code < 0x20 || code === 0x7f) tokens.push({ kind: 'mark', raw });
        else char(raw, String.fromCharCode(code));
      } else if (next === 'n') {
        tokens.push({ kind: 'break', raw: '\\n' });
        i += 2;
      } else {
        const raw = text.slice(i, i + 2);
        i += raw.length;
        if (next !== undefined && escapable.includes(next)) char(raw, next);
        else tokens.push({ kind: 'mark', raw });
      }
    } else if (c === '^') {
      let end = i;
      while (text[end] === '^') end++;
      const level = Math.min(end - i, 7);
      wh = wh === level ? 0 : level;
      tokens.push({ kind: 'scale', raw: text.slice(i, end), level });
      i = end;
    } else if (c === '_' || c === '"' || c === '`' || isControl(c)) {
      tokens.push({ kind: 'mark', raw: c });
      i++;
    } else {
      const value = String.fromCodePoint(text.codePointAt(i)!);
      i += value.length;
      if (value === '~') char('~', ' ');
      else char(value, value);
    }
  }
  return tokens;
}

/**
 * The widest row of a column's markup in display columns, as `naturalWidth(tokenize(text))`
 * without building tokens: most lines fit, and this is all they cost (bench/templates.ts
 * renders a 30-line receipt within 1 ms).
 */
export function measure(text: string): number {
  let widest = 0;
  let row = 0;
  let wh = 0;
  let scale = 1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === 'x') {
        const hex = Number.parseInt(text.slice(i + 2, i + 4), 16);
        if (/^[\dA-Fa-f]{2}$/.test(text.slice(i + 2, i + 4)) && hex >= 0x20 && hex !== 0x7f) {
          row += scale;
        }
        i += 3;
      } else {
        if (next === 'n') row = 0;
        else if (next !== undefined && escapable.includes(next)) row += scale;
        i++;
      }
    } else if (code === 0x5e) {
      let end = i;
      while (text.charCodeAt(end) === 0x5e) end++;
      const level = Math.min(end - i, 7);
      wh = wh === level ? 0 : level;
      scale = horizontal(wh);
      i = end - 1;
    } else if (code === 0x5f || code === 0x22 || code === 0x60 || code < 0x20 || code === 0x7f) {
      // decorations and control characters print nothing
    } else if (code < 0x1100) {
      row += scale;
    } else {
      const point = text.codePointAt(i)!;
      if (point > 0xffff) i++;
      row += eastAsianWidth(point) * scale;
    }
    if (row > widest) widest = row;
  }
  return widest;
}

/** A column of a text line: its alignment (0 left, 1 centre, 2 right) and its tokens. */
export interface Column {
  align: number;
  tokens: Token[];
}

/** Widest row of a column (rows end at `\n`), in display columns. */
export function naturalWidth(tokens: Token[]): number {
  let widest = 0;
  let row = 0;
  for (const token of tokens) {
    if (token.kind === 'break') row = 0;
    else if (token.kind === 'char') {
      row += token.width;
      widest = Math.max(widest, row);
    }
  }
  return widest;
}

/** Text printed wider than normal (`^`, `^^^`…; `^^` is only taller). */
export const isWide = (tokens: Token[]) =>
  tokens.some((token) => token.kind === 'char' && token.cells > 1);

/** The column at normal size: its `^` markers dropped. */
export const unscaled = (tokens: Token[]) =>
  tokenize(
    tokens
      .filter((token) => token.kind !== 'scale')
      .map((token) => token.raw)
      .join(''),
  );

/**
 * The widths ReceiptLine gives a text line's columns (its `createLine`): set widths, or equal
 * shares of what is left; a column of width 0 is hidden, and so are columns past what the
 * line holds (0 here too).
 */
export function receiptLineWidths(count: number, state: LayoutState, cpl: number): number[] {
  const key = `${count};${state.border};${state.width.join()};${cpl}`;
  let widths = knownWidths.get(key);
  if (widths === undefined) {
    widths = computeWidths(count, state, cpl);
    if (knownWidths.size > 1000) knownWidths.clear();
    knownWidths.set(key, widths);
  }
  return widths;
}

/** The widths of lines laid out before: a receipt's lines share a few column counts. */
const knownWidths = new Map<string, number[]>();

function computeWidths(count: number, state: LayoutState, cpl: number): number[] {
  const set = state.width;
  const widths = Array.from({ length: Math.max(count, set.length) }, (_, i) =>
    set.length === 0 ? -1 : i < set.length ? set[i]! : 0,
  );
  const visible = widths.map((width, index) => ({ width, index })).filter((c) => c.width !== 0);
  const fit = Math.floor(
    state.border < 0 ? (cpl - 1) / 2 : (cpl + state.border) / (state.border + 1),
  );
  const shown = visible.slice(0, fit);
  const fixed = shown.filter((c) => c.width > 0);
  const variable = shown.filter((c) => c.width < 0);
  let free = cpl - fixed.reduce((sum, c) => sum + c.width, 0);
  if (shown.length > 0) {
    free -= state.border < 0 ? shown.length + 1 : (shown.length - 1) * state.border;
  }
  while (variable.length > free) {
    fixed.reduce((a, c) => (a.width > c.width ? a : c)).width--;
    free++;
  }
  variable.forEach((c, i) => {
    c.width = Math.floor((free + i) / variable.length);
  });
  const result = widths.map(() => 0);
  for (const c of shown) result[c.index] = c.width;
  return result;
}

/**
 * A line's columns for the check that it fits, without ReceiptLine's regular expressions
 * (the same columns, save the spaces that mark their alignment), or null when the line holds
 * an escaped `\`, `|`, `{` or `}` and only `splitColumns` reads it right.
 */
export function quickColumns(line: string): string[] | null {
  if (/\\[\\{|}]/.test(line)) return null;
  let text = trim(line);
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|')) text = text.slice(0, -1);
  return text.split('|');
}

/** Splits a line into its columns' raw text as ReceiptLine does (its `parseLine`). */
export function splitColumns(line: string): string[] {
  const normalised = line
    .replace(/^[\t ]+|[\t ]+$/g, '')
    .replace(/\\[\\{|}]/g, (match) => `\\x${match.charCodeAt(1).toString(16)}`)
    .replace(/^[^|]*[^\t |]\|/, ' $&')
    .replace(/\|[^\t |][^|]*$/, '$& ')
    .replace(/^\|(.*)$/, '$1')
    .replace(/^(.*)\|$/, '$1');
  return normalised.split('|');
}

export const alignOf = (raw: string) => 1 + Number(/^[\t ]/.test(raw)) - Number(/[\t ]$/.test(raw));
export const trim = (raw: string) => raw.replace(/^[\t ]+|[\t ]+$/g, '');

/** Reads a single-property line's effect on the state (`{width:…}`, `{border:…}`, `{text:…}`). */
export function readProperty(element: string, state: LayoutState): void {
  for (const member of element.slice(1, -1).split(';')) {
    const match = /^[\t ]*([A-Za-z_]\w*)[\t ]*:[\t ]*([^\t ].*?)[\t ]*$/.exec(member);
    if (!match) continue;
    const key = { b: 'border', t: 'text', w: 'width' }[match[1]!] ?? match[1]!;
    const value = match[2]!.toLowerCase();
    if (key === 'text') state.wrap = value !== 'nowrap';
    if (key === 'border') {
      const named = { line: -1, space: 1, none: 0 }[value];
      state.border = named ?? (/^\d+$/.test(value) && Number(value) <= 2 ? Number(value) : 1);
    }
    if (key === 'width') {
      const parts = value.split(/[\t ]+|,/);
      state.width = parts.includes('auto')
        ? []
        : parts.map((c) => (c === '*' ? -1 : /^\d+$/.test(c) ? Number(c) : 0));
    }
  }
}

/** A line's columns written back with ReceiptLine's markers of their alignment. */
export function joinColumns(columns: string[], aligns: number[]): string {
  const cells = columns.map((text, i) => {
    const align = aligns[i]!;
    return align === 0 ? `${text} ` : align === 2 ? ` ${text}` : text.length > 0 ? text : ' ';
  });
  return `|${cells.join('|')}|`;
}

/**
 * What ends a row of a column in its markup: `\n`, except after a row that fills the column
 * (`cells` as ReceiptLine counts them), where ReceiptLine starts the next row itself and a
 * `\n` would print an empty row.
 */
export const rowEnd = (cells: number, width: number) => (cells >= width ? '' : '\\n');
