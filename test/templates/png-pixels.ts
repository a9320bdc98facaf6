import { Resvg } from '@resvg/resvg-js';
import type { Bitmap } from '../../server/templates/render/raster.ts';

/** A picture as grey levels, 0 (black) to 255 (white), one byte a pixel, row by row. */
export type Grey = Bitmap;

/**
 * Any PNG (whatever the encoder chose: grey, palette, RGB, with alpha, row filters) as grey
 * levels, transparent pixels over white: what a label looks like on paper. Decoded by resvg,
 * the project's own image renderer, drawing the PNG at its size on white.
 */
export function greyOf(png: Buffer): Grey {
  if (png.subarray(0, 8).toString('latin1') !== '\x89PNG\r\n\x1a\n') throw new Error('not a PNG');
  const [width, height] = [png.readUInt32BE(16), png.readUInt32BE(20)];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><image href="data:image/png;base64,${png.toString('base64')}" width="${width}" height="${height}" style="image-rendering:pixelated"/></svg>`;
  const { pixels: rgba } = new Resvg(svg, { background: 'white' }).render();
  const pixels = new Uint8Array(width * height);
  for (let i = 0; i < pixels.length; i++) {
    const [r, g, b] = [rgba[i * 4]!, rgba[i * 4 + 1]!, rgba[i * 4 + 2]!];
    pixels[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
  }
  return { width, height, pixels };
}

/** Pixels darker than mid-grey in the box [x0, x1) × [y0, y1). */
export function darkIn({ width, pixels }: Grey, x0: number, y0: number, x1: number, y1: number) {
  let count = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) if (pixels[y * width + x]! < 128) count++;
  }
  return count;
}
