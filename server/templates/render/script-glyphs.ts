import { Resvg } from '@resvg/resvg-js';
import type { LoadedFont, ScriptFonts } from './script-fonts.ts';

/**
 * The drawing of lines laid out by script-lines.ts: their shaped glyphs, each drawn once a
 * style by resvg and copied where it prints, into one grey bitmap of rows.
 */

/** Dots a drawn row: the em (as DejaVu Sans Mono's 22 dots in ReceiptLine's 24-dot rows) with room for marks. */
export const em = 22;
export const rowHeight = 34;
const baseline = 25;

/** How a column is drawn: bold, and its scale across and up (1 to 6), as ReceiptLine's `"` and `^`. */
export interface Style {
  bold: boolean;
  wide: number;
  tall: number;
}

/** A glyph placed on a row, in dots from the row's left and baseline. */
export interface Placed {
  font: LoadedFont;
  glyph: number;
  x: number;
  y: number;
}

export interface ShapedText {
  /** The text shaped, in logical order, and whether its line reads from the right. */
  text: string;
  rtl: boolean;
  glyphs: Placed[];
  style: Style;
  width: number;
  /** Dots up to each UTF-16 offset of the text, in logical order (for wrapping). */
  advances: number[];
}

/** A placed row: its glyphs shifted right by `x`. */
export interface Row {
  shaped: ShapedText;
  x: number;
}

/**
 * A glyph drawn once in a box of `box` × `boxHeight` dots (times its style's scale), its
 * origin at (`originX`, `originY`) (scaled too), then copied wherever it is printed (as
 * glyphs.ts does for DejaVu Sans Mono): one resvg picture a glyph and style, not one a
 * receipt. A picture a receipt held ~1 MiB of resvg's memory each until collected (V8 does
 * not see it), ~80 MiB a render thread.
 */
const box = 96;
const boxHeight = 56;
const originX = 24;
const originY = 40;

/**
 * Bold is the outline stroked this many dots wide around its fill (half of it outside), about
 * what a receipt printer's emphasis adds to its own font's strokes.
 */
const boldStroke = 1.4;

/** A row's height in dots: its tallest column's. */
export const heightOf = (row: Row[]) =>
  rowHeight * Math.max(1, ...row.map(({ shaped }) => shaped.style.tall));

/** The glyph's pixels in its box (null when it has no outline: a space). */
function glyphOf(
  fonts: ScriptFonts,
  font: LoadedFont,
  glyph: number,
  style: Style,
): Uint8Array | null {
  const { bold, wide, tall } = style;
  const key = ((glyph * 8 + wide) * 8 + tall) * 2 + Number(bold);
  let drawn = font.glyphs.get(key);
  if (drawn === undefined) {
    const d = font.font.glyphToPath(glyph);
    drawn = null;
    if (d !== '') {
      const [w, h] = [box * wide, boxHeight * tall];
      const [across, up] = [(em * wide) / font.upem, (em * tall) / font.upem];
      const stroke = bold
        ? ` stroke="black" stroke-width="${boldStroke / across}" stroke-linejoin="round"`
        : '';
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><path transform="translate(${originX * wide} ${originY * tall}) scale(${across} -${up})"${stroke} d="${d}"/></svg>`;
      const rgba = new Resvg(svg, {
        background: 'white',
        font: { loadSystemFonts: false },
      }).render().pixels;
      // Black ink on white: the grey of a pixel is any of its channels.
      drawn = new Uint8Array(w * h);
      for (let i = 0; i < drawn.length; i++) drawn[i] = rgba[i * 4]!;
    }
    fonts.keepGlyph(font, key, drawn);
  }
  return drawn;
}

/** The glyph's pixels copied onto `grey` (`width` dots a row) with its origin at (`left`, `base`). */
function copyGlyph(
  grey: Uint8Array,
  width: number,
  drawn: Uint8Array,
  style: Style,
  left: number,
  base: number,
) {
  const [w, h] = [box * style.wide, boxHeight * style.tall];
  const height = grey.length / width;
  const x0 = Math.round(left) - originX * style.wide;
  const y0 = Math.round(base) - originY * style.tall;
  for (let gy = 0; gy < h; gy++) {
    const ty = y0 + gy;
    if (ty < 0 || ty >= height) continue;
    for (let gx = 0; gx < w; gx++) {
      const tx = x0 + gx;
      const value = drawn[gy * w + gx]!;
      if (value === 255 || tx < 0 || tx >= width) continue;
      const at = ty * width + tx;
      // Ink over ink darkens: coverages multiply.
      grey[at] = Math.round((grey[at]! * value) / 255);
    }
  }
}

/** The rows drawn one under another, `width` dots wide, as grey pixels (0 black, 255 white). */
export function drawRows(fonts: ScriptFonts, rows: Row[][], width: number): Uint8Array {
  const height = rows.reduce((sum, row) => sum + heightOf(row), 0);
  const grey = new Uint8Array(width * height).fill(255);
  let top = 0;
  for (const row of rows) {
    const rowTall = heightOf(row) / rowHeight;
    // Every column of the row on one baseline, as the printer lines up text of two sizes.
    const base = top + baseline * rowTall;
    for (const { shaped, x: left } of row) {
      for (const { font, glyph, x, y } of shaped.glyphs) {
        const drawn = glyphOf(fonts, font, glyph, shaped.style);
        if (drawn) copyGlyph(grey, width, drawn, shaped.style, left + x, base - Math.round(y));
      }
    }
    top += heightOf(row);
  }
  return grey;
}
