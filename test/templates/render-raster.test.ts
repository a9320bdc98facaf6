import { crc32, inflateSync } from 'node:zlib';
import { Resvg } from '@resvg/resvg-js';
import receiptline from 'receiptline';
import { describe, expect, it } from 'vitest';
import { monoFamily, monoFontFile } from '../../server/templates/render/fonts.ts';
import type { Bitmap } from '../../server/templates/render/raster.ts';
import { receiptToBitmap } from '../../server/templates/render/raster-receipt.ts';
import { receiptToSvg } from '../../server/templates/render/receipt.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { darkIn } from './png-pixels.ts';

/**
 * A receipt drawn straight into a bitmap (server/templates/render/raster-receipt.ts): the
 * PNG preview and a receipt on a ZPL label printer. Sizes are those resvg gave the receipt's
 * SVG; the pixels are checked where the receipt's grid of 12 × 24 (30 with spacing) dots
 * puts them, and against resvg's rendering of the same receipt's SVG.
 */

const roll80: PrinterProfile = { language: 'escpos', width_mm: 80 };
const receipt = (source: string) => ({ kind: 'receipt' as const, source });
const png = async (source: string, profile: PrinterProfile = roll80) =>
  (await renderDocument(receipt(source), {}, profile, 'png')).bytes;

/** The grey pixels of an 8-bit grayscale PNG with unfiltered rows (what the preview writes). */
function decodePng(bytes: Buffer): Bitmap {
  expect(bytes.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  const chunks: { type: string; data: Buffer }[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const typed = bytes.subarray(at + 4, at + 8 + length);
    expect(bytes.readUInt32BE(at + 8 + length)).toBe(crc32(typed));
    chunks.push({ type: typed.toString('latin1', 0, 4), data: typed.subarray(4) });
    at += 12 + length;
  }
  expect(chunks.map((chunk) => chunk.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
  const header = chunks[0]!.data;
  const [width, height] = [header.readUInt32BE(0), header.readUInt32BE(4)];
  expect([...header.subarray(8)]).toEqual([8, 0, 0, 0, 0]); // 8-bit grey, no interlace
  const rows = inflateSync(chunks[1]!.data);
  expect(rows.length).toBe((width + 1) * height);
  const pixels = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    expect(rows[y * (width + 1)]).toBe(0);
    pixels.set(rows.subarray(y * (width + 1) + 1, (y + 1) * (width + 1)), y * width);
  }
  return { width, height, pixels };
}

const at = ({ width, pixels }: Bitmap, x: number, y: number) => pixels[y * width + x]!;

/** The height resvg gives the receipt's SVG at `width` pixels across. */
function svgHeightAt(source: string, profile: PrinterProfile, width: number): number {
  const svg = receiptToSvg(source, profile);
  const [, w, h] = svg.match(/^<svg width="(\d+)px" height="(\d+)px"/)!;
  return Math.round((Number(h) * width) / Number(w));
}

describe('a receipt as PNG', () => {
  const source =
    '^^Demo Shop\nCoffee | 2.50\n-\nTotal | 2.50\n{code:1042; option:code128,2,72,hri}';

  it.each([
    [58, 203, 384],
    [80, 203, 576],
    [112, 203, 828],
    [58, 300, 567],
    [80, 300, 851],
    [112, 300, 1224],
  ] as const)(
    '%i mm at %i dpi: %i pixels across, as high as the SVG at that width',
    async (width_mm, dpi, dots) => {
      const profile: PrinterProfile = { language: 'escpos', width_mm, dpi };
      const bitmap = decodePng(await png(source, profile));
      expect(bitmap.width).toBe(dots);
      expect(bitmap.height).toBe(svgHeightAt(source, profile, dots));
    },
  );

  it('is a valid PNG whose pixels resvg decodes to the same greys', async () => {
    const bytes = await png(source);
    const mine = decodePng(bytes);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${mine.width}" height="${mine.height}"><image href="data:image/png;base64,${bytes.toString('base64')}" width="${mine.width}" height="${mine.height}"/></svg>`;
    // `pixels` is a getter that copies the image: read it once.
    const decoded = new Resvg(svg).render().pixels;
    for (const [x, y] of [
      [0, 0],
      [300, 10],
      [mine.width - 1, mine.height - 1],
    ] as const) {
      expect(decoded[(y * mine.width + x) * 4]).toBe(at(mine, x, y));
    }
    let differ = 0;
    for (let i = 0; i < mine.pixels.length; i++) {
      if (decoded[i * 4] !== mine.pixels[i]) differ++;
    }
    expect(differ).toBe(0);
  });

  it('looks like resvg rendering the SVG: the same pixels but for rounded corners', async () => {
    const rich =
      '_under_ "bold" `inverted` ^wide^ ^^^big\nΩ € é ß\n-\n{code:x.example; option:qrcode,3}\n=';
    const mine = await receiptToBitmap(rich, roll80, 576);
    const rendered = new Resvg(receiptToSvg(rich, roll80), {
      background: 'white',
      font: { loadSystemFonts: false, fontFiles: [monoFontFile], monospaceFamily: monoFamily },
    }).render();
    expect([rendered.width, rendered.height]).toEqual([mine.width, mine.height]);
    const theirs = rendered.pixels;
    let differ = 0;
    for (let i = 0; i < mine.pixels.length; i++) {
      if (Math.abs(mine.pixels[i]! - theirs[i * 4]!) > 64) differ++;
    }
    expect(differ / mine.pixels.length).toBeLessThan(0.001);
  });

  it('a character is black where it is printed, the rest of the line white', async () => {
    // Four characters centred on 48 columns: columns 22 to 25, 264 to 312 dots across.
    const bitmap = await receiptToBitmap('MMMM', roll80, 576);
    expect(darkIn(bitmap, 264, 0, 312, 30)).toBeGreaterThan(100);
    expect(darkIn(bitmap, 0, 0, 262, 30)).toBe(0);
    expect(darkIn(bitmap, 314, 0, 576, 30)).toBe(0);
    const blank = await receiptToBitmap(' ', roll80, 576);
    expect(darkIn(blank, 0, 0, 576, blank.height)).toBe(0);
  });

  it('inverted text is white on a black box; plain text is not', async () => {
    const inverted = await receiptToBitmap('`MMMM`', roll80, 576);
    const plain = await receiptToBitmap('MMMM', roll80, 576);
    // Above the M's ink (the line's glyphs stand on y = 24) and below it, inside the box that
    // reaches from the face's ascent (y = 3.6) to its descent (y = 29.2).
    for (const y of [5, 27]) {
      expect(at(inverted, 266, y)).toBe(0);
      expect(at(plain, 266, y)).toBe(255);
    }
    // The box is black but for the glyphs: most of it dark, unlike plain text.
    expect(darkIn(inverted, 264, 0, 312, 24)).toBeGreaterThan(darkIn(plain, 264, 0, 312, 24) * 1.5);
    expect(darkIn(inverted, 0, 0, 260, 30)).toBe(0);
  });

  it("a QR code's finder pattern: black ring, white ring, black centre", async () => {
    const symbol = {
      data: 'https://x.example/1',
      type: 'qrcode' as const,
      cell: 4,
      level: 'l' as const,
    };
    const size = receiptline.qrcode.generate(symbol).length;
    const bitmap = await receiptToBitmap(
      '{code:https://x.example/1; option:qrcode,4}',
      roll80,
      576,
    );
    const [x0, y0] = [Math.floor((576 - size * 4) / 2), 0];
    const module = (mx: number, my: number) => at(bitmap, x0 + mx * 4 + 2, y0 + my * 4 + 2);
    expect([module(0, 0), module(6, 0), module(0, 6), module(6, 6)]).toEqual([0, 0, 0, 0]);
    expect([module(1, 1), module(5, 5), module(1, 5)]).toEqual([255, 255, 255]);
    expect([module(2, 2), module(3, 3), module(4, 4)]).toEqual([0, 0, 0]);
    expect(module(7, 7)).toBe(255); // the separator
  });

  it('characters outside Latin-1 are drawn from the font, never left blank', async () => {
    const bitmap = await receiptToBitmap('Ω€Ж', roll80, 576);
    // Three characters centred on 48 columns: half a column in, x = 276, 288 and 300.
    for (const x of [276, 288, 300]) {
      expect(darkIn(bitmap, x - 5, 0, x + 5, 30)).toBeGreaterThan(15);
    }
    expect(darkIn(bitmap, 0, 0, 266, 30) + darkIn(bitmap, 310, 0, 576, 30)).toBe(0);
  });

  it('the same receipt makes the same bytes', async () => {
    const source = '^^^Shop\n`Ω`|"x"\n{code:abc; option:qrcode,3}\n=';
    expect((await png(source)).equals(await png(source))).toBe(true);
  });
});

describe('a receipt on a ZPL label printer', () => {
  it('is one ^GFA graphic of the bitmap at the label width, black where the bitmap is dark', async () => {
    const profile: PrinterProfile = { language: 'zpl', width_mm: 50, dpi: 203 };
    const { bytes } = await renderDocument(receipt('MMMM\n-'), {}, profile, 'raw');
    const [, width, height, rowBytes, hex] = bytes
      .toString('latin1')
      .match(/^\^XA\^PW(\d+)\^LL(\d+)\^FO0,0\^GFA,\d+,\d+,(\d+),([0-9A-F]+)\^FS\^XZ\n$/)!;
    expect(Number(width)).toBe(400);
    expect(Number(rowBytes)).toBe(50);
    const bitmap = await receiptToBitmap('MMMM\n-', profile, 400);
    expect(Number(height)).toBe(bitmap.height);
    const bits = Buffer.from(hex!, 'hex');
    let [set, differ] = [0, 0];
    for (let y = 0; y < bitmap.height; y++) {
      for (let x = 0; x < bitmap.width; x++) {
        const black = (bits[y * 50 + (x >> 3)]! & (0x80 >> (x & 7))) !== 0;
        if (black !== at(bitmap, x, y) < 128) differ++;
        if (black) set++;
      }
    }
    expect(differ).toBe(0);
    // The characters and the rule: a line of 33 columns across the label.
    expect(set).toBeGreaterThan(400);
  });
});
