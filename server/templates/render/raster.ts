import { renderAsync } from '@resvg/resvg-js';
import { monoFamily, monoFontFile } from './fonts.ts';

/** A rendered bitmap: its size in pixels and its RGBA pixels. */
export interface Bitmap {
  width: number;
  height: number;
  pixels: Buffer;
}

const fontOptions = {
  loadSystemFonts: false,
  // One face: resvg loads its fonts for every image, and a second file doubled that cost.
  fontFiles: [monoFontFile],
  defaultFontFamily: monoFamily,
  monospaceFamily: monoFamily,
  serifFamily: monoFamily,
  sansSerifFamily: monoFamily,
};

const optionsFor = (width: number | undefined) => ({
  background: 'white',
  font: fontOptions,
  ...(width !== undefined && { fitTo: { mode: 'width' as const, value: width } }),
});

/**
 * The SVG as a PNG, `width` pixels wide (its own width when left out). Rendered on libuv's
 * thread pool (`renderAsync`): a preview of tens of milliseconds does not hold up the event
 * loop, and so the other requests.
 */
export async function svgToPng(svg: string, width?: number): Promise<Buffer> {
  return (await renderAsync(svg, optionsFor(width))).asPng();
}

/** The SVG rasterised, `width` pixels wide. */
export async function svgToBitmap(svg: string, width: number): Promise<Bitmap> {
  const rendered = await renderAsync(svg, optionsFor(width));
  return { width: rendered.width, height: rendered.height, pixels: rendered.pixels };
}

/**
 * The bitmap as one ZPL graphic field (`^GFA`, ASCII hex, one bit a dot, black where the
 * pixel is darker than mid-grey) in a label of its own size: a receipt on a label printer.
 */
export function bitmapToZpl({ width, height, pixels }: Bitmap): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const bits = Buffer.alloc(rowBytes * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const luminance = 0.299 * pixels[at]! + 0.587 * pixels[at + 1]! + 0.114 * pixels[at + 2]!;
      if (luminance < 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  const total = bits.length;
  const hex = bits.toString('hex').toUpperCase();
  return Buffer.from(
    `^XA^PW${width}^LL${height}^FO0,0^GFA,${total},${total},${rowBytes},${hex}^FS^XZ\n`,
    'latin1',
  );
}
