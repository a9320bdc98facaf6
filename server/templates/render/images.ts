import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { invalidField } from '../../domain-errors.ts';
import { propertiesOf } from './document-limits.ts';
import { base64Of, imageHeader } from './image-header.ts';
import { bitmapToPng } from './png.ts';
import type { Bitmap } from './raster.ts';

/**
 * A document's images made ready to print (docs/templates.md, "Images"): each PNG or JPEG
 * decoded, made grey (transparent parts white), scaled down to the printable width when
 * wider (one image pixel a printer dot otherwise, as ReceiptLine prints them), and dithered
 * to one bit a dot by Floyd–Steinberg error diffusion. The result, a black-and-white PNG,
 * takes the image's place in the document, so every output draws the same dots: the
 * printers' raster commands (`receipt.ts`: ESC/POS `GS v 0`, StarPRNT `ESC GS S`), the ZPL
 * graphic and the PNG preview (`raster-receipt.ts`), the SVG and the PDF drawn from it.
 * The document's bounds (`document-limits.ts`) are checked before: bytes, and pixels from
 * each header, so nothing is decoded past them.
 */

/** A decoded image: width, height and RGBA pixels. */
interface Decoded {
  width: number;
  height: number;
  data: Uint8Array;
}

/** A PNG's last chunk (IEND, its length 0 and CRC); a JPEG's end-of-image marker. */
const pngEnd = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);
const jpegEnd = Buffer.from([0xff, 0xd9]);

/** Whether the file ends as its format does (trailing bytes after a JPEG's EOI allowed). */
function endsWhole(bytes: Buffer, format: 'png' | 'jpeg'): boolean {
  if (format === 'png') return bytes.subarray(-pngEnd.length).equals(pngEnd);
  return bytes.lastIndexOf(jpegEnd) > 2;
}

/** The image decoded to RGBA; throws when it is neither a PNG nor a JPEG, or is broken. */
export function decodeImage(bytes: Buffer): Decoded {
  const header = imageHeader(bytes);
  // A file cut short is refused before a decoder reads it: pngjs inflates a truncated
  // stream into whatever its buffer held, and now and then calls that an image.
  if (header && !endsWhole(bytes, header.format)) throw new Error('the file is cut short');
  if (header?.format === 'png') return PNG.sync.read(bytes);
  if (header?.format === 'jpeg') {
    // The pixels were bounded from the header; jpeg-js's own caps are a second fence.
    return jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: 100,
      maxMemoryUsageInMB: 256,
    });
  }
  throw new Error('not a PNG or JPEG');
}

/**
 * Lightness 0–255 of each pixel, over white where it is transparent (Rec. 601 luma, as
 * ReceiptLine weighs colours).
 */
function greyOf({ width, height, data }: Decoded): Float32Array {
  const grey = new Float32Array(width * height);
  for (let i = 0, j = 0; i < grey.length; i++, j += 4) {
    const luma = data[j]! * 0.299 + data[j + 1]! * 0.587 + data[j + 2]! * 0.114;
    const alpha = data[j + 3]! / 255;
    grey[i] = 255 - alpha * (255 - luma);
  }
  return grey;
}

/**
 * The grey image scaled to `width` × `height` (smaller), each target pixel the mean of the
 * source pixels its area covers (a box filter: a logo's thin lines stay as grey that the
 * dithering then prints as dots, rather than vanishing between samples).
 */
function scaleDown(
  grey: Float32Array,
  from: { width: number; height: number },
  width: number,
  height: number,
): Float32Array {
  const out = new Float32Array(width * height);
  const sx = from.width / width;
  const sy = from.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      let sum = 0;
      for (let v = y0; v < y1; v++) {
        const row = v * from.width;
        for (let u = x0; u < x1; u++) sum += grey[row + u]!;
      }
      out[y * width + x] = sum / ((y1 - y0) * (x1 - x0));
    }
  }
  return out;
}

/**
 * Floyd–Steinberg error diffusion: each pixel black (0) below mid-grey, else white (255),
 * and the difference passed on to the pixels not yet decided, 7/16 right, 3/16 below left,
 * 5/16 below, 1/16 below right. A mid-grey area prints half its dots.
 */
export function dither(grey: Float32Array, width: number, height: number): Bitmap {
  const pixels = new Uint8Array(width * height);
  // Levels in sixteenths of a grey level, integers throughout: the shares of an error are
  // shifts (0.2 ms for a 300 × 120 logo, against 0.7 ms in floating point).
  const level = new Int32Array(grey.length);
  for (let i = 0; i < grey.length; i++) level[i] = (grey[i]! * 16 + 0.5) | 0;
  for (let y = 0; y < height; y++) {
    const below = y + 1 < height;
    for (let x = 0, i = y * width; x < width; x++, i++) {
      const old = level[i]!;
      let error: number;
      // Below mid-grey (128 × 16) black, else white (255 × 16).
      if (old < 2048) {
        pixels[i] = 0;
        error = old;
      } else {
        pixels[i] = 255;
        error = old - 4080;
      }
      if (x + 1 < width) level[i + 1]! += (error * 7) >> 4;
      if (below) {
        if (x > 0) level[i + width - 1]! += (error * 3) >> 4;
        level[i + width]! += (error * 5) >> 4;
        if (x + 1 < width) level[i + width + 1]! += error >> 4;
      }
    }
  }
  return { width, height, pixels };
}

/** The image (base64 PNG or JPEG) as a dithered PNG at most `maxWidth` dots wide. */
export function printableImage(base64: string, maxWidth: number): Bitmap {
  const decoded = decodeImage(Buffer.from(base64, 'base64'));
  let grey = greyOf(decoded);
  let { width, height } = decoded;
  if (width > maxWidth) {
    const scaledHeight = Math.max(1, Math.round((height * maxWidth) / width));
    grey = scaleDown(grey, decoded, maxWidth, scaledHeight);
    width = maxWidth;
    height = scaledHeight;
  }
  return dither(grey, width, height);
}

/**
 * Images made ready recently, by their base64 and width: a template's logo is the same on
 * every job a thread renders.
 */
const ready = new Map<string, string>();
const maxReady = 32;

function readyImage(base64: string, maxWidth: number, field: string): string {
  const key = `${maxWidth}:${base64}`;
  let png = ready.get(key);
  if (png === undefined) {
    try {
      png = bitmapToPng(printableImage(base64, maxWidth)).toString('base64');
    } catch (error) {
      throw invalidField(
        field,
        `An image could not be decoded: ${error instanceof Error ? error.message : String(error)}.`,
      );
    }
    if (ready.size >= maxReady) ready.delete(ready.keys().next().value!);
    ready.set(key, png);
  }
  return png;
}

/** An image member of a property (`image:…`, `i:…`), up to the next member or the end. */
const imageMember = /(^|[{;])([\t ]*)(?:image|i)([\t ]*:)[^;}]*/;

/**
 * The document with each image (`{image:…}`) replaced by its printable PNG, at most
 * `maxWidth` dots wide (the paper's printable width). An image that does not decode is a 422
 * on `field`.
 */
export function prepareImages(document: string, maxWidth: number, field = 'data'): string {
  if (!/\{[^}]*\b(?:image|i)[\t ]*:/.test(document)) return document;
  return document
    .split(/(\r\n|\n|\r)/)
    .map((line) => {
      const image = line.includes('{') ? propertiesOf(line)?.image : undefined;
      if (image === undefined) return line;
      const png = readyImage(base64Of(image), maxWidth, field);
      return line.replace(
        imageMember,
        (_, start, space, colon) => `${start}${space}image${colon}${png}`,
      );
    })
    .join('');
}
