import { inflateSync } from 'node:zlib';

/** A picture as grey levels, 0 (black) to 255 (white), one byte a pixel, row by row. */
export interface Grey {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** Samples a pixel for each PNG colour type (PNG §11.2.2). */
const samplesOf: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** The Paeth predictor (PNG §9.4). */
function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Any non-interlaced PNG (whatever the encoder chose: grey, palette, RGB, with alpha, row
 * filters, 1 to 8 bits a sample) as grey levels, transparent pixels over white: what a
 * label looks like on paper.
 */
export function greyOf(png: Buffer): Grey {
  if (png.subarray(0, 8).toString('latin1') !== '\x89PNG\r\n\x1a\n') throw new Error('not a PNG');
  let header: Buffer | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') header = body;
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  if (!header) throw new Error('no IHDR');
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  const [depth, colour, interlace] = [header[8]!, header[9]!, header[12]!];
  if (depth > 8 || interlace !== 0) throw new Error(`unsupported: ${depth} bits, interlace`);
  const samples = samplesOf[colour]!;
  const bitsPerPixel = samples * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const step = Math.max(1, bitsPerPixel / 8);
  const raw = inflateSync(Buffer.concat(data));
  const rows = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= step ? rows[y * stride + x - step]! : 0;
      const b = y > 0 ? rows[(y - 1) * stride + x]! : 0;
      const c = x >= step && y > 0 ? rows[(y - 1) * stride + x - step]! : 0;
      const predicted = [0, a, b, (a + b) >> 1, paeth(a, b, c)][filter]!;
      rows[y * stride + x] = (line[x]! + predicted) & 0xff;
    }
  }
  const max = (1 << depth) - 1;
  const sample = (y: number, index: number) => {
    if (depth === 8) return rows[y * stride + index]!;
    const bit = index * depth;
    return (rows[y * stride + (bit >> 3)]! >> (8 - depth - (bit & 7))) & max;
  };
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const s = (k: number) => sample(y, x * samples + k);
      let [r, g, b, alpha] = [0, 0, 0, 255];
      if (colour === 3) {
        const index = s(0);
        [r, g, b] = [palette![index * 3]!, palette![index * 3 + 1]!, palette![index * 3 + 2]!];
        alpha = transparency?.[index] ?? 255;
      } else if (colour === 0 || colour === 4) {
        r = g = b = Math.round((s(0) * 255) / max);
        if (colour === 4) alpha = s(1);
      } else {
        [r, g, b] = [s(0), s(1), s(2)];
        if (colour === 6) alpha = s(3);
      }
      const grey = 0.299 * r + 0.587 * g + 0.114 * b;
      pixels[y * width + x] = Math.round((grey * alpha + 255 * (255 - alpha)) / 255);
    }
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
