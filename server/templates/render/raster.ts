import { Resvg } from '@resvg/resvg-js';
import { monoBoldFontFile, monoFamily, monoFontFile } from './fonts.ts';

/** A rendered bitmap: its size in pixels and its RGBA pixels. */
export interface Bitmap {
  width: number;
  height: number;
  pixels: Buffer;
}

const fontOptions = {
  loadSystemFonts: false,
  fontFiles: [monoFontFile, monoBoldFontFile],
  defaultFontFamily: monoFamily,
  monospaceFamily: monoFamily,
  serifFamily: monoFamily,
  sansSerifFamily: monoFamily,
};

function resvgOf(svg: string, width: number | undefined): Resvg {
  return new Resvg(svg, {
    background: 'white',
    font: fontOptions,
    ...(width !== undefined && { fitTo: { mode: 'width' as const, value: width } }),
  });
}

/** The SVG as a PNG, `width` pixels wide (its own width when left out). */
export function svgToPng(svg: string, width?: number): Buffer {
  return resvgOf(svg, width).render().asPng();
}

/** The SVG rasterised, `width` pixels wide. */
export function svgToBitmap(svg: string, width: number): Bitmap {
  const rendered = resvgOf(svg, width).render();
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
