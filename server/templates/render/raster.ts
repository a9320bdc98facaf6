/** A rendered bitmap: its size in pixels and its pixels, one byte each (0 black, 255 white). */
export interface Bitmap {
  width: number;
  height: number;
  pixels: Uint8Array;
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
      if (pixels[y * width + x]! < 128) bits[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  const total = bits.length;
  const hex = bits.toString('hex').toUpperCase();
  return Buffer.from(
    `^XA^PW${width}^LL${height}^FO0,0^GFA,${total},${total},${rowBytes},${hex}^FS^XZ\n`,
    'latin1',
  );
}
