/**
 * An image's format and size read from its header, before anything is decoded: a PNG's
 * IHDR chunk (PNG §11.2.2), a JPEG's start-of-frame marker (ITU T.81 §B.2.2). The bounds on
 * an image's pixels (`document-limits.ts`) are checked on these numbers, so a small file
 * that claims 12,000 × 12,000 pixels is refused without being decoded.
 */

export type ImageFormat = 'png' | 'jpeg';

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngHeader(bytes: Buffer): ImageHeader | undefined {
  if (bytes.length < 24 || !bytes.subarray(0, 8).equals(pngSignature)) return undefined;
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * SOF0–SOF15 carry the frame's size; C4 (DHT), C8 (JPG) and CC (DAC) share their range and
 * do not.
 */
const isStartOfFrame = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

function jpegHeader(bytes: Buffer): ImageHeader | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    // Fill bytes (FF FF …) before a marker, and the markers that have no length.
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // image ends or data starts: no frame
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2) return undefined;
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return undefined;
      return {
        format: 'jpeg',
        height: bytes.readUInt16BE(at + 5),
        width: bytes.readUInt16BE(at + 7),
      };
    }
    at += 2 + length;
  }
  return undefined;
}

/** The image's format and size, or undefined when it is neither a PNG nor a JPEG. */
export function imageHeader(bytes: Buffer): ImageHeader | undefined {
  return pngHeader(bytes) ?? jpegHeader(bytes);
}

/**
 * An image property's value as ReceiptLine decodes it: what follows the first `=` and every
 * character that is not base64 dropped (so a `data:` URL's prefix spoils the image).
 */
export const base64Of = (value: string): string => value.replace(/=.*|[^A-Za-z0-9+/]/g, '');
