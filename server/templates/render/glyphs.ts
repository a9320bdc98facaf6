import { readFileSync } from 'node:fs';
import { renderAsync } from '@resvg/resvg-js';
import { monoFamily, monoFontFile } from './fonts.ts';

/**
 * The receipt's characters as small bitmaps, each rasterised once by resvg and then copied
 * wherever it is printed (raster-receipt.ts). A glyph is drawn exactly as resvg draws it in
 * receiptline's SVG: the same face and size (DejaVu Sans Mono at 22 px), anchored the same way
 * (`text-anchor="middle"` at the character's x, `dominant-baseline="text-after-edge"` at the
 * line's bottom), bold as the SVG's `stroke="#000"`, underlined by the font's own underline.
 */

/** How a glyph is drawn: resolution (pixels a dot), receiptline's width and height factors. */
export interface GlyphStyle {
  scale: number;
  wide: number;
  high: number;
  bold: boolean;
  underline: boolean;
}

/** A glyph's coverage (0–255) in the smallest box holding its ink, placed from its anchor. */
export interface Glyph {
  left: number;
  top: number;
  width: number;
  height: number;
  alpha: Uint8Array;
}

/** receiptline's SVG font size for the single-byte code pages (`_svg.close`: 2 × 12 − 2). */
export const fontSize = 22;

interface FontMetrics {
  advance: number;
  ascent: number;
  descent: number;
}
let metrics: FontMetrics | undefined;

/**
 * The face's metrics in em: its advance (one for every glyph) and line box (hhea). Read at
 * the first use (the font is 340 KB), not when the server starts.
 */
export function fontMetrics(): FontMetrics {
  metrics ??= readMetrics();
  return metrics;
}

function readMetrics(): FontMetrics {
  const font = readFileSync(monoFontFile);
  const table = (tag: string) => {
    for (let i = 0, count = font.readUInt16BE(4); i < count; i++) {
      const record = 12 + i * 16;
      if (font.toString('latin1', record, record + 4) === tag) {
        return font.readUInt32BE(record + 8);
      }
    }
    throw new Error(`${monoFontFile} has no ${tag} table`);
  };
  const unitsPerEm = font.readUInt16BE(table('head') + 18);
  const hhea = table('hhea');
  return {
    advance: font.readUInt16BE(table('hmtx')) / unitsPerEm,
    ascent: font.readInt16BE(hhea + 4) / unitsPerEm,
    descent: -font.readInt16BE(hhea + 6) / unitsPerEm,
  };
}

const fontOptions = {
  loadSystemFonts: false,
  fontFiles: [monoFontFile],
  defaultFontFamily: monoFamily,
  monospaceFamily: monoFamily,
};

/** Printable ASCII and Latin-1: what nearly every receipt prints, rendered in one go. */
const latin1 = Array.from({ length: 256 }, (_, code) => String.fromCharCode(code)).filter((char) =>
  /[\x21-\x7e\xa1-\xff]/.test(char),
);

/** Past this many glyphs the cache starts over (a receipt of many scripts cannot grow it). */
const maxGlyphs = 20_000;

/** One style's key: the glyph cache's, and what a drawing groups its characters by. */
export const keyOf = (style: GlyphStyle) =>
  `${style.scale.toFixed(5)} ${style.wide} ${style.high} ${+style.bold}${+style.underline}`;

const asSvgText = (char: string) =>
  char === ' '
    ? '&#xa0;' // as receiptline writes a space: a glyph that an underline still crosses
    : char.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

/**
 * Glyphs rendered so far, by style and character. A glyph whose character the font lacks is
 * stored empty (as resvg leaves it in the SVG), never asked for again.
 */
export class GlyphCache {
  #styles = new Map<string, Map<string, Glyph>>();
  #count = 0;

  /**
   * The glyphs of these characters in these styles, rendering the missing ones: one resvg
   * image a style (with all of Latin-1 the first time a normal-size style is seen). What it
   * returns stays whole even if another receipt makes the cache start over meanwhile.
   */
  async prepare(needed: Iterable<{ style: GlyphStyle; chars: Set<string> }>): Promise<GlyphSet> {
    if (this.#count > maxGlyphs) {
      this.#styles = new Map();
      this.#count = 0;
    }
    const styles = new Map<string, Map<string, Glyph>>();
    await Promise.all(
      [...needed].map(async ({ style, chars }) => {
        const key = keyOf(style);
        const known = this.#styles.get(key);
        const missing = [...chars].filter((char) => !known?.has(char));
        if (known === undefined && style.wide === 1 && style.high === 1) {
          missing.push(...latin1.filter((char) => !chars.has(char)));
        }
        const rendered = missing.length > 0 ? await renderGlyphs(style, missing) : [];
        const glyphs = this.#styles.get(key) ?? new Map<string, Glyph>();
        this.#styles.set(key, glyphs);
        for (const [char, glyph] of rendered) {
          if (!glyphs.has(char)) this.#count++;
          glyphs.set(char, glyph);
        }
        styles.set(key, glyphs);
      }),
    );
    return { get: (style, char) => styles.get(keyOf(style))?.get(char) };
  }
}

/** Glyphs ready to copy. */
export interface GlyphSet {
  get(style: GlyphStyle, char: string): Glyph | undefined;
}

/** The characters in a grid, each in a cell far larger than any glyph, cut out one by one. */
async function renderGlyphs(style: GlyphStyle, chars: string[]): Promise<Map<string, Glyph>> {
  const sx = style.scale * style.wide;
  const sy = style.scale * style.high;
  const cellWidth = Math.ceil(fontSize * 2 * sx);
  const cellHeight = Math.ceil(fontSize * 3 * sy);
  // The anchor: centred across, two thirds down (glyphs rise above and drop below it).
  const anchorX = Math.round(cellWidth / 2);
  const anchorY = Math.round(cellHeight * 0.65);
  const columns = 16;
  const rows = Math.ceil(chars.length / columns);
  const width = cellWidth * columns;
  const height = cellHeight * rows;
  const attributes =
    (style.bold ? ' stroke="#000"' : '') + (style.underline ? ' text-decoration="underline"' : '');
  // A text element each: a decoration belongs to its own character, never joins the next cell.
  const texts = chars.map((char, i) => {
    const x = (i % columns) * cellWidth + anchorX;
    const y = Math.floor(i / columns) * cellHeight + anchorY;
    return (
      `<g transform="translate(${x},${y})"><text transform="scale(${sx},${sy})"${attributes}>` +
      `<tspan x="0">${asSvgText(char)}</tspan></text></g>`
    );
  });
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<g font-family="monospace" fill="#000" font-size="${fontSize}" ` +
    `dominant-baseline="text-after-edge" text-anchor="middle">${texts.join('')}</g></svg>`;
  const { pixels } = await renderAsync(svg, { font: fontOptions });
  const glyphs = new Map<string, Glyph>();
  chars.forEach((char, i) => {
    const x0 = (i % columns) * cellWidth;
    const y0 = Math.floor(i / columns) * cellHeight;
    glyphs.set(char, cutOut(pixels, width, x0, y0, cellWidth, cellHeight, anchorX, anchorY));
  });
  return glyphs;
}

/** One cell's ink (the alpha of resvg's RGBA) in its smallest box. */
function cutOut(
  pixels: Buffer,
  stride: number,
  x0: number,
  y0: number,
  cellWidth: number,
  cellHeight: number,
  anchorX: number,
  anchorY: number,
): Glyph {
  let [left, top, right, bottom] = [cellWidth, cellHeight, -1, -1];
  for (let y = 0; y < cellHeight; y++) {
    const row = ((y0 + y) * stride + x0) * 4 + 3;
    for (let x = 0; x < cellWidth; x++) {
      if (pixels[row + x * 4] !== 0) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  if (right < 0) return { left: 0, top: 0, width: 0, height: 0, alpha: new Uint8Array(0) };
  const width = right - left + 1;
  const height = bottom - top + 1;
  const alpha = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = ((y0 + top + y) * stride + x0 + left) * 4 + 3;
    for (let x = 0; x < width; x++) alpha[y * width + x] = pixels[row + x * 4]!;
  }
  return { left: left - anchorX, top: top - anchorY, width, height, alpha };
}
