import { constants, crc32, deflateSync } from 'node:zlib';
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
