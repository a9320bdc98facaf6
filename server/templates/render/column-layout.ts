import {
  alignOf,
  type CharToken,
  type Column,
  horizontal,
  isWide,
  joinColumns,
  type LayoutState,
  measure,
  naturalWidth,
  quickColumns,
  readProperty,
  receiptLineWidths,
  rowEnd,
  splitColumns,
  type Token,
  textWidth,
  tokenize,
  trim,
  unscaled,
} from './receiptline-markup.ts';

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
 * - on a line without set widths (and outside a ruled table), every column is kept whole
 *   (the amount) but the widest left-aligned one (the name), else the widest, which takes
 *   the rest of the line;
 * - a column wraps at spaces; a word is broken only when it alone is wider than its column;
 * - the continuation rows of a left-aligned column are indented (under the name after a
 *   leading quantity such as `2 x `, else by two characters);
 * - wider text (`^`, `^^^`) that does not fit on one row prints at normal width instead.
 *
 * How ReceiptLine reads the markup and lays columns out is in one adapter,
 * receiptline-markup.ts, whose test pins it against the package.
 */

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
    out += rowEnd(rowCells, width);
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
 * Widths with every column kept whole but one, which takes the rest of the line: the widest
 * left-aligned column (the item's name; an amount is right-aligned), else the widest. Null
 * when that leaves it less than a quarter of the line and less than its text.
 */
function wholeWidths(columns: Column[], border: number, cpl: number): number[] | null {
  const natural = columns.map((column) => Math.max(1, naturalWidth(column.tokens)));
  const widest = (candidates: number[]) =>
    candidates.reduce((a, i) => (natural[i]! > natural[a]! ? i : a), candidates[0]!);
  const all = columns.map((_, i) => i);
  const left = all.filter((i) => columns[i]!.align === 0);
  for (const flex of new Set([...(left.length > 0 ? [widest(left)] : []), widest(all)])) {
    const others = natural.reduce((sum, width, i) => (i === flex ? sum : sum + width), 0);
    const room = cpl - (columns.length - 1) * border - others;
    if (room >= Math.max(1, Math.min(natural[flex]!, Math.floor(cpl / 4)))) {
      return natural.map((width, i) => (i === flex ? room : width));
    }
  }
  return null;
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
  if (columns.some((column) => isWide(column.tokens))) {
    // Wider text (`^`, `^^^`) stays so only on one row; else it prints at normal width.
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
  let changed = false;
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
      const laidOut = layOutLine(raws, state, cpl, line);
      if (laidOut.length !== 1 || laidOut[0] !== line) changed = true;
      out.push(...laidOut);
    }
  }
  // A receipt whose every line fits is handed to ReceiptLine as it came.
  return changed ? out.join('\n') : document;
}
