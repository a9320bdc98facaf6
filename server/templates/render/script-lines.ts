import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../../shared/templates.ts';
import { printsAsText } from './codepage.ts';
import { bitmapToPng } from './png.ts';
import { alignOf, horizontal, splitColumns, tokenize, trim } from './receiptline-markup.ts';
import {
  drawnScript,
  fontFor,
  type ScriptFont,
  type ScriptFonts,
  scriptFonts,
} from './script-fonts.ts';
import {
  drawRows,
  em,
  heightOf,
  type Placed,
  type Row,
  type ShapedText,
  type Style,
} from './script-glyphs.ts';

/**
 * Lines the printer cannot print as text (Japanese, Chinese, Thai, Arabic, Hebrew, Hindi on a
 * printer of single-byte code pages) become pictures: each such line of the ReceiptLine
 * document is replaced by an `{image:…}` line holding the line drawn, shaped by HarfBuzz in
 * a Noto face (script-fonts.ts). ReceiptLine prints an image as a raster (ESC/POS `GS v 0`,
 * StarPRNT's raster command), and the previews draw the same picture, so a PNG, SVG or PDF
 * shows the glyphs the printer prints. Every other line is left as it was: a Latin receipt
 * costs one test of its text.
 *
 * Per line, not per character: a line is drawn whole (its columns where ReceiptLine puts
 * them: the first left, the last right, a single one centred), wrapped at spaces (or between
 * any two CJK characters) where wider than the paper. A column is drawn bold (`"`) and at the
 * size of its first character (`^` double width, `^^` double height, `^^^` both, up to six
 * times), as the printer prints text; a line too wide at double width is drawn at normal width,
 * as the layout does for text (column-layout.ts). Underline and inverted text are not drawn.
 * Right-to-left: the line's direction is that of its first strong character, each run of one
 * script is shaped in its own direction and the runs are ordered by the line's (the
 * Unicode bidirectional algorithm's outcome for the usual receipt line: words, then numbers).
 */

/** Dots between two drawn columns. */
const gap = 12;

/** A character the profile's printer prints as text (its code page or multibyte mode holds it). */
type Printable = (char: string) => boolean;

/**
 * What the printer can hold, for the printer's own bytes (`raw` on ESC/POS and StarPRNT);
 * undefined where every character of the drawn scripts is drawn (previews, PDF, ZPL).
 */
function printableOf(profile: PrinterProfile, format: PreviewFormat): Printable | undefined {
  if (format !== 'raw' || (profile.language !== 'escpos' && profile.language !== 'starprnt')) {
    return undefined;
  }
  const codepage = profile.codepage ?? 'cp437';
  const multibyte = profile.multibyte;
  return (char) =>
    printsAsText(codepage, char) ||
    (multibyte !== undefined && printsAsText(multibyte, char, false));
}

/** Whether the format draws text at all (the plain text keeps every character as UTF-8). */
const draws = (profile: PrinterProfile, format: PreviewFormat) =>
  format !== 'text' && !(format === 'raw' && profile.language === 'text');

/** A drawn row's text where it is drawn, in dots from its picture's top left. */
export interface DrawnText {
  text: string;
  rtl: boolean;
  x: number;
  top: number;
  width: number;
  height: number;
}

/** Each row's columns as the text drawn there. */
function drawnTexts(rows: Row[][]): DrawnText[] {
  let top = 0;
  return rows.flatMap((row) => {
    const height = heightOf(row);
    const texts = row.map(({ shaped, x }) => ({
      text: shaped.text,
      rtl: shaped.rtl,
      x,
      top,
      width: shaped.width,
      height,
    }));
    top += height;
    return texts;
  });
}

/**
 * The document with each line the profile cannot print as text replaced by its picture.
 * A document without a character of the drawn scripts is returned at once. `texts`, when
 * given, gets each picture's text by its base64 (a PDF's text layer: pdf-text-layer.ts).
 */
export async function drawScriptLines(
  document: string,
  profile: PrinterProfile,
  format: PreviewFormat,
  widthDots: number,
  texts?: Map<string, DrawnText[]>,
): Promise<string> {
  if (!draws(profile, format) || !drawnScript.test(document)) return document;
  const printable = printableOf(profile, format);
  const lines = document.split(/\r\n|\n|\r/);
  const drawn: { index: number; rows: Row[][] }[] = [];
  let fonts: ScriptFonts | undefined;
  for (let index = 0; index < lines.length; index++) {
    const columns = textColumns(lines[index]!);
    if (!columns) continue;
    const needed = columns.some(({ text }) =>
      [...text].some((char) => drawnScript.test(char) && !printable?.(char)),
    );
    if (!needed) continue;
    fonts ??= await scriptFonts();
    drawn.push({ index, rows: layOut(fonts, columns, widthDots) });
  }
  if (drawn.length === 0 || !fonts) return document;
  // The drawn lines as one bitmap (their glyphs copied in: glyphOf), cut in lines.
  const picture = drawRows(
    fonts,
    drawn.flatMap(({ rows }) => rows),
    widthDots,
  );
  let top = 0;
  for (const { index, rows } of drawn) {
    const height = rows.reduce((sum, row) => sum + heightOf(row), 0);
    const pixels = picture.subarray(top * widthDots, (top + height) * widthDots);
    const image = bitmapToPng({ width: widthDots, height, pixels }).toString('base64');
    lines[index] = `{image:${image}}`;
    texts?.set(image, drawnTexts(rows));
    top += height;
  }
  return lines.join('\n');
}

const plain: Style = { bold: false, wide: 1, tall: 1 };

/** A `^` run's vertical scale, as ReceiptLine computes it (`^` 1, `^^` 2, `^^^` 2, then 3 to 6). */
const vertical = (wh: number) => (wh < 2 ? 1 : wh < 3 ? 2 : wh - 1);

/** A column of a text line: its characters (markup read), alignment (0 left, 1 centre, 2 right) and style. */
interface TextColumn {
  text: string;
  align: number;
  style: Style;
}

/** A text line's columns; undefined for a property line (`{…}`) or a rule. */
function textColumns(line: string): TextColumn[] | undefined {
  const raws = splitColumns(line);
  const elements = raws.map(trim);
  if (elements.some((element) => /(?<!\\)[{}]/.test(element))) return undefined;
  if (raws.length === 1 && /^-+$|^=+$/.test(elements[0]!)) return undefined;
  return raws.map(columnOf);
}

/** A column's characters, and the style of its first (ReceiptLine's decoration starts plain in each column). */
function columnOf(raw: string): TextColumn {
  let text = '';
  let bold = false;
  let wh = 0;
  let style: Style | undefined;
  for (const token of tokenize(trim(raw))) {
    if (token.kind === 'mark' && token.raw === '"') bold = !bold;
    else if (token.kind === 'scale') wh = wh === token.level ? 0 : token.level;
    else if (token.kind === 'char') {
      style ??= { bold, wide: horizontal(wh), tall: vertical(wh) };
      text += token.value;
    }
  }
  return { text, align: alignOf(raw), style: style ?? plain };
}

/** A run of one face, shaped in one direction. */
interface Run {
  font: ScriptFont;
  start: number;
  end: number;
}

const rtl = (font: ScriptFont) => font === 'arabic' || font === 'hebrew';

/** The text cut into runs of one face; spaces and punctuation join the run before them. */
function runsOf(text: string): Run[] {
  const runs: Run[] = [];
  let offset = 0;
  for (const char of text) {
    const font = fontFor(char);
    const last = runs.at(-1);
    if (last && (font === undefined || font === last.font)) last.end += char.length;
    else runs.push({ font: font ?? 'latin', start: offset, end: offset + char.length });
    offset += char.length;
  }
  // Leading neutrals take the face of the run after them.
  if (runs.length > 1 && fontFor(text.slice(runs[0]!.start, runs[0]!.end)[0]!) === undefined) {
    const [first, second] = runs;
    if ([...text.slice(first!.start, first!.end)].every((char) => fontFor(char) === undefined)) {
      second!.start = first!.start;
      runs.shift();
    }
  }
  return runs;
}

/** The text shaped in `style`, its runs in the visual order of the line's direction. */
function shape(fonts: ScriptFonts, text: string, style: Style): ShapedText {
  const { hb } = fonts;
  const runs = runsOf(text);
  const advances = new Array<number>(text.length + 1).fill(0);
  const shaped = runs.map((run) => {
    const loaded = fonts.face(run.font);
    const scale = em / loaded.upem;
    const [across, up] = [scale * style.wide, scale * style.tall];
    const { buffer } = fonts;
    buffer.reset();
    buffer.addText(text.slice(run.start, run.end));
    buffer.guessSegmentProperties();
    buffer.setDirection(rtl(run.font) ? hb.Direction.RTL : hb.Direction.LTR);
    hb.shape(loaded.font, buffer);
    const glyphs = buffer.getGlyphInfosAndPositions().map((info) => {
      const advance = (info.xAdvance ?? 0) * across;
      advances[run.start + info.cluster + 1]! += advance;
      return {
        glyph: info.codepoint,
        advance,
        dx: (info.xOffset ?? 0) * across,
        dy: (info.yOffset ?? 0) * up,
      };
    });
    return { loaded, glyphs };
  });
  for (let i = 1; i < advances.length; i++) advances[i]! += advances[i - 1]!;
  const firstStrong = runs.find((run) => run.font !== 'latin') ?? runs[0];
  const leftward = firstStrong !== undefined && rtl(firstStrong.font);
  if (leftward) shaped.reverse();
  const placed: Placed[] = [];
  let x = 0;
  for (const { loaded, glyphs } of shaped) {
    for (const glyph of glyphs) {
      placed.push({ font: loaded, glyph: glyph.glyph, x: x + glyph.dx, y: glyph.dy });
      x += glyph.advance;
    }
  }
  return { text, rtl: leftward, glyphs: placed, style, width: x, advances };
}

/** Where a row of the text ends when it must fit `width` dots: at a space, else between CJK characters, else anywhere. */
function breakAt(text: string, advances: number[], width: number): number {
  let fits = 1;
  while (fits < text.length && advances[fits + 1]! <= width) fits++;
  for (let i = fits; i > 0; i--) if (text[i] === ' ') return i;
  for (let i = fits; i > 0; i--) {
    if (fontFor(text[i - 1]!) === 'cjk' || fontFor(text[i]!) === 'cjk') return i;
  }
  // Not inside a surrogate pair.
  return /[\udc00-\udfff]/.test(text[fits] ?? '') ? fits - 1 : fits;
}

/** The text as rows no wider than `width` dots. */
function wrap(fonts: ScriptFonts, text: string, style: Style, width: number): ShapedText[] {
  const rows: ShapedText[] = [];
  let rest = text;
  while (rest !== '') {
    const shaped = shape(fonts, rest, style);
    if (shaped.width <= width) {
      rows.push(shaped);
      break;
    }
    const end = Math.max(1, breakAt(rest, shaped.advances, width));
    rows.push(shape(fonts, rest.slice(0, end).trimEnd(), style));
    rest = rest.slice(end).trimStart();
  }
  return rows;
}

/** The columns' total width on one row, in dots. */
const oneRow = (shaped: ShapedText[]) =>
  shaped.reduce((sum, { width: w }) => sum + w, 0) + gap * (shaped.length - 1);

/**
 * The line laid out in rows: its columns side by side where they fit (at double width where
 * that fits too, else at normal width), else one after another.
 */
function layOut(fonts: ScriptFonts, line: TextColumn[], width: number): Row[][] {
  let columns = line;
  let shaped = columns.map((column) => shape(fonts, column.text, column.style));
  if (oneRow(shaped) > width && columns.some(({ style }) => style.wide > 1)) {
    columns = columns.map((column) => ({ ...column, style: { ...column.style, wide: 1 } }));
    shaped = columns.map((column) => shape(fonts, column.text, column.style));
  }
  if (oneRow(shaped) <= width) {
    // One row: each column in its share of the line, aligned in it as ReceiptLine aligns it.
    const share = width / columns.length;
    return [
      shaped.map((text, i) => {
        const align =
          columns.length === 1 ? columns[0]!.align : i === 0 ? 0 : i === columns.length - 1 ? 2 : 1;
        const start = columns.length === 1 ? 0 : i * share;
        const room = columns.length === 1 ? width : share;
        const x =
          align === 0 ? start : align === 2 ? width - text.width : start + (room - text.width) / 2;
        return { shaped: text, x: Math.max(0, Math.min(x, width - text.width)) };
      }),
    ];
  }
  // Too wide: each column on rows of its own, wrapped, aligned as its column.
  return columns.flatMap((column, i) =>
    wrap(fonts, column.text, column.style, width).map((row) => {
      const align = columns.length === 1 ? columns[0]!.align : i === columns.length - 1 ? 2 : 0;
      return [{ shaped: row, x: (align * (width - row.width)) / 2 }];
    }),
  );
}
