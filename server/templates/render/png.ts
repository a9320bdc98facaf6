import { constants, crc32, deflateSync, inflateSync } from 'node:zlib';
import type { Bitmap } from './raster.ts';

/** The PNG signature (PNG §5.2). */
const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A chunk: length, type, data, and the CRC-32 of type and data (PNG §5.3). */
function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * The bitmap as a PNG: 8-bit grayscale (colour type 0), each row unfiltered (filter type
 * 0). A receipt is mostly white rows that deflate to almost nothing at the fastest level;
 * row filters made the file a little smaller and the encoding slower.
 */
export function bitmapToPng({ width, height, pixels }: Bitmap): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale; compression, filter and interlace methods 0
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    rows.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1);
  }
  const data = deflateSync(rows, { level: constants.Z_BEST_SPEED });
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', data),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A PNG as `bitmapToPng` writes it (8-bit grey, no interlace, every row unfiltered) back as
 * its bitmap; undefined for any other PNG. The printer's path reads the lines it drew itself
 * (script-lines.ts) this way, without a general PNG decoder.
 */
export function pngToBitmap(png: Buffer): Bitmap | undefined {
  if (png.length < 33 || !png.subarray(0, 8).equals(signature)) return undefined;
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  // Bit depth 8, grey, compression 0, filter method 0, no interlace.
  if (png.readUInt32BE(24) !== 0x08000000 || png[28] !== 0) return undefined;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') {
      data.push(png.subarray(at + 8, at + 8 + length));
    }
    at += 12 + length;
  }
  const rows = inflateSync(Buffer.concat(data));
  if (rows.length !== (width + 1) * height) return undefined;
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const start = y * (width + 1);
    if (rows[start] !== 0) return undefined;
    pixels.set(rows.subarray(start + 1, start + 1 + width), y * width);
  }
  return { width, height, pixels };
}
