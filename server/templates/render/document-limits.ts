import { invalidField } from '../../domain-errors.ts';
import { base64Of, imageHeader } from './image-header.ts';

/**
 * The bounds a rendered ReceiptLine document must keep before it reaches ReceiptLine or a
 * drawing (docs/templates.md, "Limits"). ReceiptLine's layout is super-linear in a line's
 * length (a line of 30,000 characters: ~0.4 s for ESC/POS, ~1 s as a PNG; 10,000: ~80 ms),
 * a QR code costs up to ~0.1 s drawn and ~0.2 s as SVG, and an image is decoded whole: so
 * each is counted here, by reading the document as ReceiptLine reads it, and a document past
 * a bound is refused at once, a 422 naming the bound.
 */

/** Lines a document may have (a 2,000-line delivery note fits with room). */
export const maxDocumentLines = 5000;
/** Characters of a document outside its images (a 2,000-line delivery note: ~120,000). */
export const maxDocumentText = 256 * 1024;
/** Characters of one line, text or code (an 80 mm receipt's line holds 48). */
export const maxLineLength = 8192;
/** Barcodes a document may have (a sheet of shelf labels: a few dozen). */
export const maxBarcodes = 50;
/** QR codes a document may have (a receipt has one or two). */
export const maxQrCodes = 10;
/**
 * Characters of one QR code's data: the most a QR code holds (7,089 digits, version 40);
 * past it no symbol can be made, however long ReceiptLine would try.
 */
export const maxQrData = 7089;
/** Largest image a receipt may carry, decoded (a logo is a few KB). */
export const maxImageBytes = 256 * 1024;
/**
 * Pixels all of a document's images may have together, counted at the resolution they are
 * drawn at (one image pixel a printer dot; a 300 dpi PNG preview draws each ~1.48 times
 * wider and higher): 4 megapixels, an 80 mm roll's full width (576 dots) for ~87 cm. A logo
 * (576 × 200) is 0.12. Read from each image's header (a PNG's IHDR, a JPEG's SOF), before anything is decoded.
 */
export const maxImagePixels = 4_000_000;

/** What a document holds, as ReceiptLine reads it. */
interface DocumentParts {
  lines: number;
  text: number;
  longestLine: number;
  barcodes: number;
  qrCodes: { data: string }[];
  images: string[];
}

const abbreviations: Record<string, string> = {
  a: 'align',
  b: 'border',
  c: 'code',
  i: 'image',
  o: 'option',
  t: 'text',
  w: 'width',
  x: 'command',
  _: 'comment',
};

/** ReceiptLine's `parseEscape`: `\xHH` decoded, other escapes dropped. */
const parseEscape = (chars: string) =>
  chars
    .replace(/\\$|\\x(.?$|[^\dA-Fa-f].|.[^\dA-Fa-f])/g, '')
    .replace(/\\[^x]/g, '')
    .replace(/\\x([\dA-Fa-f]{2})/g, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );

/**
 * A line's properties (`{code:…; option:qrcode}`) when the line is one column that is a
 * property, as ReceiptLine's `parseLine` finds them; undefined for a line of text (codes and
 * images are drawn from a line that is a property alone).
 */
export function propertiesOf(line: string): Record<string, string> | undefined {
  const columns = line
    .replace(/^[\t ]+|[\t ]+$/g, '')
    .replace(/\\[\\{|}]/g, (match) => `\\x${match.charCodeAt(1).toString(16)}`)
    .replace(/^\|(.*)$/, '$1')
    .replace(/^(.*)\|$/, '$1')
    .split('|');
  if (columns.length !== 1) return undefined;
  const element = columns[0]!.replace(/^[\t ]+|[\t ]+$/g, '');
  if (!/^\{[^{}]*\}$/.test(element)) return undefined;
  const properties: Record<string, string> = {};
  for (const member of element.slice(1, -1).replace(/\\;/g, '\\x3b').split(';')) {
    const match = /^[\t ]*([A-Za-z_]\w*)[\t ]*:[\t ]*([^\t ].*?)[\t ]*$/.exec(member);
    if (match) properties[abbreviations[match[1]!] ?? match[1]!] = parseEscape(match[2]!);
  }
  return properties;
}

const symbology = /^(upc|ean|jan|code39|itf|codabar|nw7|code93|code128|qrcode)$/;

function partsOf(document: string): DocumentParts {
  const parts: DocumentParts = {
    lines: 0,
    text: 0,
    longestLine: 0,
    barcodes: 0,
    qrCodes: [],
    images: [],
  };
  // The symbology a code is drawn in: the last `option` before it, as ReceiptLine keeps it.
  let qrcode = false;
  for (const line of document.split(/\n|\r\n|\r/)) {
    parts.lines += 1;
    const properties = line.includes('{') ? propertiesOf(line) : undefined;
    if (properties?.option !== undefined) {
      const type = properties.option
        .toLowerCase()
        .split(/[\t ]+|,/)
        .find((c) => symbology.test(c));
      qrcode = type === 'qrcode';
    }
    if (properties?.image !== undefined) {
      parts.images.push(properties.image);
      continue;
    }
    parts.text += line.length;
    parts.longestLine = Math.max(parts.longestLine, line.length);
    if (properties?.code !== undefined) {
      if (qrcode) parts.qrCodes.push({ data: properties.code });
      else parts.barcodes += 1;
    }
  }
  return parts;
}

/**
 * The images' refusals: not a PNG or JPEG in base64, too many bytes; their pixels, for the
 * count. The bytes are bounded before the base64 is decoded, the pixels read from the
 * header (`image-header.ts`) before the image is.
 */
function imagePixels(images: string[], field: string): number {
  let pixels = 0;
  for (const value of images) {
    const base64 = base64Of(value);
    if ((base64.length * 3) / 4 > maxImageBytes) {
      throw invalidField(field, `An image must be at most ${maxImageBytes / 1024} KiB.`);
    }
    const size = imageHeader(Buffer.from(base64, 'base64'));
    if (!size) {
      throw invalidField(
        field,
        'An image must be a PNG or JPEG in base64 ({image:iVBORw0KGgo…} or {image:/9j/…}).',
      );
    }
    pixels += size.width * size.height;
  }
  return pixels;
}

/**
 * Images in a document (ReceiptLine's `{image:…}`, `{i:…}`) are PNGs or JPEGs in base64, each at
 * most `maxImageBytes` decoded: anything else is a 422 on `field`, before ReceiptLine
 * decodes it. A template's own source is checked with this when it is saved.
 */
export function checkImages(document: string, field: string): void {
  imagePixels(partsOf(document).images, field);
}

/**
 * A rendered document within every bound above, else a 422 on `field` naming the bound.
 * `scale`: the output's pixels a ReceiptLine dot (1 for printer bytes and at 203 dpi).
 */
export function checkDocument(document: string, field: string, scale = 1): void {
  const parts = partsOf(document);
  const refuse = (message: string) => {
    throw invalidField(field, `The rendered document is past a limit: ${message}.`);
  };
  if (parts.lines > maxDocumentLines) refuse(`it has more than ${maxDocumentLines} lines`);
  if (parts.text > maxDocumentText) {
    refuse(`it has more than ${maxDocumentText} characters of text`);
  }
  if (parts.longestLine > maxLineLength) {
    refuse(`a line is longer than ${maxLineLength} characters`);
  }
  if (parts.barcodes > maxBarcodes) refuse(`it has more than ${maxBarcodes} barcodes`);
  if (parts.qrCodes.length > maxQrCodes) refuse(`it has more than ${maxQrCodes} QR codes`);
  if (parts.qrCodes.some(({ data }) => data.length > maxQrData)) {
    refuse(`a QR code holds more than ${maxQrData} characters`);
  }
  const pixels = imagePixels(parts.images, field) * Math.max(1, scale) ** 2;
  if (pixels > maxImagePixels) {
    refuse(`its images have more than ${maxImagePixels / 1_000_000} megapixels as drawn`);
  }
}
