/** A rendered bitmap: its size in pixels and its pixels, one byte each (0 black, 255 white). */
export interface Bitmap {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** ASCII codes of the upper-case hex digits, as ZPL's `^GFA` data is written. */
const hexDigits = Buffer.from('0123456789ABCDEF', 'latin1');

/**
 * The bitmap as one ZPL graphic field (`^GFA`, ASCII hex, one bit a dot, black where the
 * pixel is darker than mid-grey) in a label of its own size: a receipt on a label printer.
 */
export function bitmapToZpl({ width, height, pixels }: Bitmap): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const total = rowBytes * height;
  const head = Buffer.from(
    `^XA^PW${width}^LL${height}^FO0,0^GFA,${total},${total},${rowBytes},`,
    'latin1',
  );
  const tail = Buffer.from('^FS^XZ\n', 'latin1');
  const out = Buffer.alloc(head.length + total * 2 + tail.length);
  head.copy(out);
  tail.copy(out, head.length + total * 2);
  let at = head.length;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0; x < width; x += 8) {
      // Eight pixels a byte, the leftmost in the high bit, written as two hex digits.
      let byte = 0;
      for (let bit = 0, end = Math.min(8, width - x); bit < end; bit++) {
        if (pixels[row + x + bit]! < 128) byte |= 0x80 >> bit;
      }
      out[at++] = hexDigits[byte >> 4]!;
      out[at++] = hexDigits[byte & 15]!;
    }
  }
  return out;
}

/**
 * The bitmap as ESC/POS `GS v 0` raster commands (one bit a dot, black where the pixel is
 * darker than mid-grey), in bands of at most 1,024 rows: a line drawn for the printer
 * (script-lines.ts) printed as it was drawn, without a PNG decoder or dithering.
 */
export function bitmapToEscposRaster({ width, height, pixels }: Bitmap): string {
  const rowBytes = Math.ceil(width / 8);
  let out = '';
  for (let top = 0; top < height; top += 1024) {
    const rows = Math.min(1024, height - top);
    const band = Buffer.alloc(8 + rowBytes * rows);
    band.write('\x1dv0\x00', 0, 'latin1');
    band.writeUInt16LE(rowBytes, 4);
    band.writeUInt16LE(rows, 6);
    let at = 8;
    for (let y = top; y < top + rows; y++) {
      const row = y * width;
      for (let x = 0; x < width; x += 8) {
        let byte = 0;
        for (let bit = 0, end = Math.min(8, width - x); bit < end; bit++) {
          if (pixels[row + x + bit]! < 128) byte |= 0x80 >> bit;
        }
        band[at++] = byte;
      }
    }
    out += band.toString('latin1');
  }
  return out;
}
