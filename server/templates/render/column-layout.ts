import { eastAsianWidth } from 'get-east-asian-width';

/**
 * Word wrapping for ReceiptLine documents, done before ReceiptLine lays them out.
 *
 * ReceiptLine wraps a column by character ("Sourdough l" / "oaf") and, unless the template
 * sets widths, splits a line into equal columns (an amount of 4 characters gets half of an
 * 80 mm line, and `^Total | ^23.45 EUR` breaks its amount at 58 mm). Its public markup has
 * what a better layout needs: `\n` in a column's text starts a new row of that column, and
 * `{width:…}` sets the columns' widths. So each text line that would not fit is rewritten
 * here, and every other line is left as it was:
 *
 * - on a line without set widths, every column but the widest is kept whole (the amount),
 *   and the widest takes the rest of the line;
 * - a column wraps at spaces; a word is broken only when it alone is wider than its column;
 * - the continuation rows of a left-aligned column are indented (under the name after a
 *   leading quantity such as `2 x `, else by two characters);
 * - scaled text (`^`) that cannot be laid out so is printed at normal size rather than split.
 *
 * This file is the one adapter over ReceiptLine's layout rules (the widths it gives columns,
 * how a row that fills its column ends); test/templates/column-layout.test.ts pins them.
 */

/** ReceiptLine's state across lines that the layout depends on. */
interface LayoutState {
  wrap: boolean;
  border: number;
  /** Widths set by `{width:…}`: `-1` for `*`; empty for `auto`. */
  width: number[];
}

/** A piece of a column's markup, as ReceiptLine reads it. */
type Token =
  | { kind: 'char'; raw: string; value: string; width: number; cells: number; space: boolean }
  | { kind: 'scale'; raw: string; level: number }
  | { kind: 'mark'; raw: string }
  | { kind: 'break'; raw: string };

type CharToken = Extract<Token, { kind: 'char' }>;

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
const horizontal = (wh: number) => (wh < 2 ? wh + 1 : wh - 1);

/** A column's text as tokens, each character's width at the scale it prints in. */
function tokenize(text: string): Token[] {
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
function measure(text: string): number {
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
interface Column {
  align: number;
  tokens: Token[];
}

/** Widest row of a column (rows end at `\n`), in display columns. */
function naturalWidth(tokens: Token[]): number {
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

const hasScale = (tokens: Token[]) => tokens.some((token) => token.kind === 'scale');

/** The column at normal size: its `^` markers dropped. */
const unscaled = (tokens: Token[]) =>
  tokenize(
    tokens
      .filter((token) => token.kind !== 'scale')
      .map((token) => token.raw)
      .join(''),
  );

/** A leading quantity (`2 x `, `2x `, `10 `): continuation rows are indented past it. */
const quantity = /^\d+(?:[.,]\d+)?(?:\s?[x×*])?\s+/;

/** How far continuation rows of a left-aligned column are indented, in display columns. */
function hangingIndent(tokens: Token[], width: number): number {
  const text = tokens.map((token) => (token.kind === 'char' ? token.value : '')).join('');
  const lead = quantity.exec(text)?.[0];
  const indent = lead === undefined ? 2 : textWidth(lead);
  return indent <= width / 3 ? indent : 0;
}

/**
 * The column's markup wrapped to `width` display columns: rows joined by `\n`, except after
 * a row that fills the column, where ReceiptLine starts the next row itself (a `\n` there
 * would print an empty row).
 */
function wrapColumn(column: Column, width: number): string {
  const { tokens } = column;
  const indent = column.align === 0 ? hangingIndent(tokens, width) : 0;
  let out = '';
  let rowWidth = 0;
  let rowCells = 0;
  let wh = 0;
  /** Ends the row; the next starts with up to `hang` display columns of spaces. */
  const newRow = (hang: number) => {
    out += rowCells >= width ? '' : '\\n';
    const scale = horizontal(wh);
    const spaces = Math.floor(Math.max(0, hang) / scale);
    out += ' '.repeat(spaces);
    rowWidth = spaces * scale;
    rowCells = spaces * scale;
  };
  const put = (token: Token) => {
    out += token.raw;
    if (token.kind === 'char') {
      rowWidth += token.width;
      rowCells += token.cells;
    } else if (token.kind === 'scale') {
      wh = wh === token.level ? 0 : token.level;
    }
  };
  let gap: CharToken[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i]!;
    if (token.kind === 'break') {
      out += token.raw;
      rowWidth = rowCells = 0;
      gap = [];
      i++;
      continue;
    }
    if (token.kind === 'char' && token.space) {
      gap.push(token);
      i++;
      continue;
    }
    // A word: the tokens up to the next space or row break.
    let end = i;
    let wordWidth = 0;
    for (; end < tokens.length; end++) {
      const t = tokens[end]!;
      if (t.kind === 'break' || (t.kind === 'char' && t.space)) break;
      if (t.kind === 'char') wordWidth += t.width;
    }
    const gapWidth = gap.reduce((sum, t) => sum + t.width, 0);
    if (rowWidth === 0 || rowWidth + gapWidth + wordWidth <= width) {
      // Spaces that start a row print where they are (ReceiptLine trims the column's ends).
      for (const t of gap) put(t);
    } else {
      newRow(Math.min(indent, width - wordWidth));
    }
    gap = [];
    // A word wider than its column is broken where the row is full.
    for (; i < end; i++) {
      const t = tokens[i]!;
      if (t.kind === 'char' && rowWidth > 0 && rowWidth + t.width > width) {
        newRow(Math.min(indent, width - t.width));
      }
      put(t);
    }
  }
  return out;
}

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
function quickColumns(line: string): string[] | null {
  if (/\\[\\{|}]/.test(line)) return null;
  let text = trim(line);
  if (text.startsWith('|')) text = text.slice(1);
  if (text.endsWith('|')) text = text.slice(0, -1);
  return text.split('|');
}

/** Splits a line into its columns' raw text as ReceiptLine does (its `parseLine`). */
function splitColumns(line: string): string[] {
  const normalised = line
    .replace(/^[\t ]+|[\t ]+$/g, '')
    .replace(/\\[\\{|}]/g, (match) => `\\x${match.charCodeAt(1).toString(16)}`)
    .replace(/^[^|]*[^\t |]\|/, ' $&')
    .replace(/\|[^\t |][^|]*$/, '$& ')
    .replace(/^\|(.*)$/, '$1')
    .replace(/^(.*)\|$/, '$1');
  return normalised.split('|');
}

const alignOf = (raw: string) => 1 + Number(/^[\t ]/.test(raw)) - Number(/[\t ]$/.test(raw));
const trim = (raw: string) => raw.replace(/^[\t ]+|[\t ]+$/g, '');

/** Reads a single-property line's effect on the state (`{width:…}`, `{border:…}`, `{text:…}`). */
function readProperty(element: string, state: LayoutState): void {
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

/**
 * Widths with every column kept whole but one, which takes the rest of the line: the widest
 * left-aligned column (the item's name; an amount is right-aligned), else the widest. Null
 * when that leaves it less than a quarter of the line and less than its text.
 */
function wholeWidths(columns: Column[], border: number, cpl: number): number[] | null {
  const natural = columns.map((column) => Math.max(1, naturalWidth(column.tokens)));
  const left = columns.some((column) => column.align === 0);
  let flex = -1;
  columns.forEach((column, i) => {
    if ((column.align === 0 || !left) && (flex < 0 || natural[i]! > natural[flex]!)) flex = i;
  });
  const others = natural.reduce((sum, width, i) => (i === flex ? sum : sum + width), 0);
  const room = cpl - (columns.length - 1) * border - others;
  if (room < Math.max(1, Math.min(natural[flex]!, Math.floor(cpl / 4)))) return null;
  return natural.map((width, i) => (i === flex ? room : width));
}

/** A line's columns written back with ReceiptLine's markers of their alignment. */
function joinColumns(columns: string[], aligns: number[]): string {
  const cells = columns.map((text, i) => {
    const align = aligns[i]!;
    return align === 0 ? `${text} ` : align === 2 ? ` ${text}` : text.length > 0 ? text : ' ';
  });
  return `|${cells.join('|')}|`;
}

/** One text line laid out: the lines that replace it. */
function layOutLine(quick: string[], state: LayoutState, cpl: number, line: string): string[] {
  if (!state.wrap) return [line];
  const drawn = receiptLineWidths(quick.length, state, cpl);
  if (quick.every((raw, i) => measure(raw) <= drawn[i]!)) return [line];
  const raws = splitColumns(line);
  let columns: Column[] = raws.map((raw) => ({ align: alignOf(raw), tokens: tokenize(trim(raw)) }));
  const fitsIn = (widths: number[]) =>
    columns.every((column, i) => naturalWidth(column.tokens) <= widths[i]!);
  const aligns = columns.map((column) => column.align);
  const visible = drawn.slice(0, columns.length).every((width) => width > 0);
  // Widths of our own only where the template set none, and not in a ruled table.
  const own = state.width.length === 0 && state.border >= 0 && columns.length >= 2 && visible;
  const written = (widths: number[]) => {
    const texts = columns.map((column, i) =>
      widths[i] === 0 ? trim(raws[i]!) : wrapColumn(column, widths[i]!),
    );
    const joined = joinColumns(texts, aligns);
    return widths === drawn ? [joined] : [`{width:${widths.join(',')}}`, joined, '{width:auto}'];
  };
  if (columns.some((column) => hasScale(column.tokens))) {
    // Scaled text stays scaled only on one row; else it prints at normal size.
    const whole = own ? wholeWidths(columns, state.border, cpl) : null;
    if (whole !== null && fitsIn(whole)) return written(whole);
    columns = columns.map((column) => ({ ...column, tokens: unscaled(column.tokens) }));
    if (fitsIn(drawn)) return written(drawn);
  }
  if (own) {
    const whole = wholeWidths(columns, state.border, cpl);
    if (whole !== null) return written(whole);
  }
  return written(drawn);
}

/**
 * The document with every text line that would not fit laid out by words (see above), for a
 * line of `cpl` characters. Other lines are returned as they were.
 */
export function layOutColumns(document: string, cpl: number): string {
  const state: LayoutState = { wrap: true, border: 1, width: [] };
  const lines = document.normalize().split(/\n|\r\n|\r/);
  const out: string[] = [];
  for (const line of lines) {
    const raws = quickColumns(line) ?? splitColumns(line);
    const elements = raws.map(trim);
    if (raws.length === 1 && /^\{[^{}]*\}$/.test(elements[0]!)) {
      readProperty(elements[0]!, state);
      out.push(line);
    } else if (
      elements.some((element) => /[{}]/.test(element)) ||
      (raws.length === 1 && /^-+$|^=+$/.test(elements[0]!))
    ) {
      out.push(line);
    } else {
      out.push(...layOutLine(raws, state, cpl, line));
    }
  }
  return out.join('\n');
}
