import { renderAsync } from '@resvg/resvg-js';
import { invalidField } from '../../domain-errors.ts';
import {
  fontMetrics,
  fontSize,
  GlyphCache,
  type GlyphSet,
  type GlyphStyle,
  keyOf,
} from './glyphs.ts';
import { pngToBitmap } from './png.ts';
import type { Bitmap } from './raster.ts';
import { pathSegments } from './receipt-layout.ts';

/**
 * What a receipt draws (raster-receipt.ts records it), in receiptline's dots (its SVG's user
 * units), and how it is painted once the receipt's height is known, `scale` pixels a dot:
 * rectangles filled, glyphs (glyphs.ts) and images copied.
 */

/** receiptline's dots a character across (`_base.charWidth`); a line is twice as high. */
export const dot = 12;

export interface TextStyle {
  wide: number;
  high: number;
  bold: boolean;
  underline: boolean;
  invert: boolean;
}

export const normal: TextStyle = { wide: 1, high: 1, bold: false, underline: false, invert: false };

/** A drawing in dots: a black rectangle, characters anchored on a line, an image, the cut. */
export type Drawing =
  | { kind: 'rect'; x0: number; y0: number; x1: number; y1: number }
  | { kind: 'text'; style: TextStyle; chars: string[]; xs: number[]; y: number }
  | { kind: 'image'; base64: string; width: number; height: number; x: number; y: number }
  | { kind: 'scissors'; y: number };

/** What a receipt drew: its size in dots and its drawings in order. */
export interface Receipt {
  width: number;
  height: number;
  drawings: Drawing[];
}

/** The first IHDR's width and height of a PNG in base64 (as receiptline's SVG reads them). */
export function pngSize(base64: string): { width: number; height: number } {
  const png = Buffer.from(base64, 'base64');
  const ihdr = png.toString('latin1', 12, 16) === 'IHDR' && png.length >= 24;
  return ihdr
    ? { width: png.readUInt32BE(16), height: png.readUInt32BE(20) }
    : { width: 0, height: 0 };
}

/** A 2-dot square centred on a point: a stroke's join, or a step along a curve. */
const square = (x: number, y: number): Drawing => ({
  kind: 'rect',
  x0: x - 1,
  y0: y - 1,
  x1: x + 1,
  y1: y + 1,
});

/**
 * The path (M, m, h, v, l, q and z, the commands receiptline's rules use) stroked 2 dots
 * wide: straight runs as rectangles, joins and curves as squares (corners come out close
 * to resvg's, without its anti-aliasing).
 */
export function stroke(drawings: Drawing[], ox: number, oy: number, path: string): void {
  let [x, y] = [ox, oy];
  let drawn = false;
  const lineTo = (toX: number, toY: number) => {
    if (drawn) drawings.push(square(x, y));
    if (toX === x || toY === y) {
      drawings.push({
        kind: 'rect',
        x0: Math.min(x, toX) - (toX === x ? 1 : 0),
        y0: Math.min(y, toY) - (toY === y ? 1 : 0),
        x1: Math.max(x, toX) + (toX === x ? 1 : 0),
        y1: Math.max(y, toY) + (toY === y ? 1 : 0),
      });
    } else {
      const steps = Math.ceil(Math.hypot(toX - x, toY - y));
      for (let i = 0; i <= steps; i++) {
        drawings.push(square(x + ((toX - x) * i) / steps, y + ((toY - y) * i) / steps));
      }
    }
    [x, y, drawn] = [toX, toY, true];
  };
  for (const segment of pathSegments(path, ox, oy)) {
    switch (segment.kind) {
      case 'move':
        [x, y, drawn] = [segment.x, segment.y, false];
        break;
      case 'line':
      case 'close':
        lineTo(segment.x, segment.y);
        break;
      case 'quad': {
        const { cx, cy, x: ex, y: ey } = segment;
        for (let t = 0; t <= 1; t += 1 / 8) {
          const [a, b, c] = [(1 - t) ** 2, 2 * t * (1 - t), t ** 2];
          drawings.push(square(a * x + b * cx + c * ex, a * y + b * cy + c * ey));
        }
        [x, y, drawn] = [ex, ey, true];
        break;
      }
    }
  }
}

const glyphs = new GlyphCache();

/** A grey image to lay over the receipt (darkest wins): a decoded PNG, the scissors. */
interface Sprite {
  width: number;
  height: number;
  grey: Uint8Array;
}

const scissorsSvg =
  '<path d="M12,12.5l-7.5,-3a2,2,0,1,1,.5,0M12,11.5l-7.5,3a2,2,0,1,0,.5,0" fill="none" stroke="#000" stroke-width="1"/>' +
  '<path d="M12,12l10,-4q-1,-1,-2.5,-1l-10,4v2l10,4q1.5,0,2.5,-1z" fill="#000"/>';
const scissors = new Map<number, Promise<Sprite>>();

/** An SVG fragment of `width` × `height` dots rendered by resvg at `scale`, as grey. */
async function sprite(content: string, width: number, height: number, scale: number) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${content}</svg>`;
  // No text in a sprite: without loading the host's fonts (~200 ms a sprite otherwise).
  const rendered = await renderAsync(svg, {
    background: 'white',
    font: { loadSystemFonts: false },
    fitTo: { mode: 'zoom', value: scale },
  });
  const { pixels } = rendered;
  const grey = new Uint8Array(rendered.width * rendered.height);
  for (let i = 0; i < grey.length; i++) {
    const at = i * 4;
    grey[i] = Math.round(0.299 * pixels[at]! + 0.587 * pixels[at + 1]! + 0.114 * pixels[at + 2]!);
  }
  return { width: rendered.width, height: rendered.height, grey };
}

const styleAt = (text: TextStyle, scale: number): GlyphStyle => ({
  scale,
  wide: text.wide,
  high: text.high,
  bold: text.bold,
  underline: text.underline,
});

/**
 * The most pixels a drawn receipt may have: 80 megapixels, one byte each (a 2,000-line
 * delivery note at 203 dpi is ~35, at 300 dpi ~75). Its lines are bounded before it is laid
 * out, but not how tall each is drawn (`^^^^^^^` text, QR codes, barcodes 240 dots high).
 */
export const maxBitmapPixels = 80_000_000;

/** The drawings at `width` pixels across: glyphs and images made first, then painted in order. */
export async function paint(receipt: Receipt, width: number): Promise<Bitmap> {
  const scale = width / receipt.width;
  // As resvg sized the SVG (at least a row: a PNG has one).
  const height = Math.max(1, Math.round(receipt.height * scale));
  if (width * height > maxBitmapPixels) {
    throw invalidField(
      'data',
      `The rendered document is past a limit: drawn, it would be larger than ${maxBitmapPixels / 1_000_000} megapixels.`,
    );
  }
  const pixels = new Uint8Array(width * height).fill(255);
  const needed = new Map<string, { style: GlyphStyle; chars: Set<string> }>();
  const sprites = new Map<Drawing, Promise<Sprite>>();
  for (const drawing of receipt.drawings) {
    if (drawing.kind === 'text') {
      const style = styleAt(drawing.style, scale);
      const key = keyOf(style);
      const entry = needed.get(key) ?? { style, chars: new Set() };
      for (const char of drawing.chars) entry.chars.add(char);
      needed.set(key, entry);
    } else if (drawing.kind === 'image') {
      const { width: w, height: h } = drawing;
      // A line drawn by script-lines.ts, at one pixel a dot: its pixels as they are.
      const own = scale === 1 ? pngToBitmap(Buffer.from(drawing.base64, 'base64')) : undefined;
      const image = `<image href="data:image/png;base64,${drawing.base64}" width="${w}" height="${h}"/>`;
      if (own) sprites.set(drawing, Promise.resolve({ ...own, grey: own.pixels }));
      else if (w > 0 && h > 0) sprites.set(drawing, sprite(image, w, h, scale));
    } else if (drawing.kind === 'scissors') {
      if (!scissors.has(scale)) scissors.set(scale, sprite(scissorsSvg, 24, 24, scale));
      sprites.set(drawing, scissors.get(scale)!);
    }
  }
  const [glyphSet, images] = await Promise.all([
    glyphs.prepare(needed.values()),
    Promise.all([...sprites].map(async ([drawing, image]) => [drawing, await image] as const)),
  ]);
  const ready = new Map(images);

  const fill = (x0: number, y0: number, x1: number, y1: number, value: number) => {
    const [left, right] = [Math.max(0, x0), Math.min(width, x1)];
    for (let y = Math.max(0, y0); y < Math.min(height, y1); y++) {
      pixels.fill(value, y * width + left, y * width + Math.max(left, right));
    }
  };
  /** A dot coordinate's pixel edge; a rectangle keeps at least one pixel. */
  const px = (value: number) => Math.round(value * scale);
  for (const drawing of receipt.drawings) {
    switch (drawing.kind) {
      case 'rect': {
        const [x0, y0] = [px(drawing.x0), px(drawing.y0)];
        fill(x0, y0, Math.max(x0 + 1, px(drawing.x1)), Math.max(y0 + 1, px(drawing.y1)), 0);
        break;
      }
      case 'text':
        drawText(drawing, glyphSet, scale, pixels, width, height, fill);
        break;
      case 'image':
      case 'scissors': {
        const image = ready.get(drawing);
        if (!image) break;
        const [x0, y0] =
          drawing.kind === 'image' ? [px(drawing.x), px(drawing.y)] : [0, px(drawing.y)];
        for (let y = 0; y < image.height; y++) {
          const ty = y0 + y;
          if (ty < 0 || ty >= height) continue;
          for (let x = 0; x < image.width; x++) {
            const tx = x0 + x;
            if (tx < 0 || tx >= width) continue;
            const at = ty * width + tx;
            pixels[at] = Math.min(pixels[at]!, image.grey[y * image.width + x]!);
          }
        }
        break;
      }
    }
  }
  return { width, height, pixels };
}

/**
 * Characters: black over the receipt, or for inverted text white in a black box as large as
 * resvg's box of the text (advances across, the face's line box up and down).
 */
function drawText(
  text: Extract<Drawing, { kind: 'text' }>,
  glyphs: GlyphSet,
  scale: number,
  pixels: Uint8Array,
  width: number,
  height: number,
  fill: (x0: number, y0: number, x1: number, y1: number, value: number) => void,
): void {
  const { style, chars, xs, y } = text;
  const glyphStyle = styleAt(style, scale);
  if (style.invert && chars.length > 0) {
    const font = fontMetrics();
    const half = (font.advance * fontSize * style.wide) / 2;
    const x0 = (xs[0]! - half) * scale;
    const x1 = (xs[xs.length - 1]! + half) * scale;
    const y0 = (y - font.ascent * fontSize * style.high) * scale;
    const y1 = (y + font.descent * fontSize * style.high) * scale;
    const [left, top] = [Math.floor(x0), Math.floor(y0)];
    fill(left, top, left + Math.ceil(x1 - x0), top + Math.ceil(y1 - y0), 0);
  }
  const anchorY = Math.round(y * scale);
  chars.forEach((char, i) => {
    const glyph = glyphs.get(glyphStyle, char);
    if (!glyph) return;
    const left = Math.round(xs[i]! * scale) + glyph.left;
    const top = anchorY + glyph.top;
    for (let gy = 0; gy < glyph.height; gy++) {
      const ty = top + gy;
      if (ty < 0 || ty >= height) continue;
      for (let gx = 0; gx < glyph.width; gx++) {
        const tx = left + gx;
        const alpha = glyph.alpha[gy * glyph.width + gx]!;
        if (alpha === 0 || tx < 0 || tx >= width) continue;
        const at = ty * width + tx;
        // Over black text: the ink's share darkens; inverted: the glyph's coverage lightens.
        pixels[at] = style.invert
          ? Math.max(pixels[at]!, alpha)
          : Math.round((pixels[at]! * (255 - alpha)) / 255);
      }
    }
  });
}
