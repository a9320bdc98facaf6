import { Resvg } from '@resvg/resvg-js';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { receiptAs } from '../../server/templates/render/draw.ts';
import { pngToBitmap } from '../../server/templates/render/png.ts';
import { drawScriptLines } from '../../server/templates/render/script-lines.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { darkIn, greyOf } from './png-pixels.ts';

/**
 * Scripts a receipt printer's code page cannot hold (server/templates/render/script-lines.ts):
 * each such line is drawn, shaped, in a Noto face and printed as a raster image, where it
 * was; lines the printer holds stay text.
 */

const escpos: PrinterProfile = { language: 'escpos', width_mm: 80 };
const star: PrinterProfile = { language: 'starprnt', width_mm: 80 };

const sentences = [
  ['Japanese', 'ありがとうございました'],
  ['Chinese', '谢谢光临，欢迎再来'],
  ['Thai', 'ขอบคุณที่ใช้บริการ'],
  ['Arabic', 'شكرا لزيارتكم'],
  ['Hebrew', 'תודה רבה על הקנייה'],
  ['Hindi', 'आपकी खरीदारी के लिए धन्यवाद'],
] as const;

/** The PNG of the one drawn line of a one-line document, as grey pixels. */
async function drawn(sentence: string) {
  const document = await drawScriptLines(sentence, escpos, 'raw', 576);
  const image = /^\{image:([A-Za-z0-9+/=]+)\}$/.exec(document);
  expect(image, `${sentence} is drawn`).not.toBeNull();
  return greyOf(Buffer.from(image![1]!, 'base64'));
}

const ink = (grey: ReturnType<typeof greyOf>) => darkIn(grey, 0, 0, grey.width, grey.height);

describe('a line in a script the code page lacks', () => {
  it.each(sentences)('%s is drawn with its glyphs, not boxes', async (_, sentence) => {
    const picture = await drawn(sentence);
    const reversed = await drawn([...sentence].reverse().join(''));
    expect(picture.width).toBe(576);
    expect(ink(picture)).toBeGreaterThan(200);
    // Boxes (a face without the glyphs) would draw the reversed sentence identically.
    expect(Buffer.from(picture.pixels).equals(Buffer.from(reversed.pixels))).toBe(false);
  });

  it('orders a right-to-left line from the right: its number is drawn left of its words', async () => {
    // First columns are left-aligned: both pictures start at the left edge, with the
    // number in a right-to-left line; drawn left to right, each would start with its word.
    const lines = [await drawn('שלום 12 | '), await drawn('ב 12 | ')];
    const firstInk = (grey: (typeof lines)[0]) => {
      const columns = Array.from({ length: grey.width }, (_, x) =>
        darkIn(grey, x, 0, x + 1, grey.height),
      );
      const start = columns.findIndex((dark) => dark > 0);
      const end = columns.indexOf(0, start);
      return { start, columns: columns.slice(start, end) };
    };
    const [long, short] = lines.map(firstInk);
    expect(long!.start).toBeLessThan(12);
    expect(long).toEqual(short);
    expect(ink(lines[0]!)).toBeGreaterThan(ink(lines[1]!));
  });

  it.each(sentences)(
    '%s prints as an ESC/POS raster image (GS v 0) where the line was',
    async (_, sentence) => {
      const { bytes } = await receiptAs(`Before\n${sentence}\nAfter`, escpos, 'raw');
      const printed = bytes.toString('latin1');
      const before = printed.indexOf('Before');
      const raster = printed.indexOf('\x1dv0');
      const after = printed.indexOf('After');
      expect(before).toBeGreaterThanOrEqual(0);
      expect(raster).toBeGreaterThan(before);
      expect(after).toBeGreaterThan(raster);
      expect(printed.slice(before, raster)).not.toContain('?');
    },
  );

  it.each(sentences)(
    '%s prints as a StarPRNT raster image (ESC GS S) where the line was',
    async (_, sentence) => {
      const { bytes } = await receiptAs(`Before\n${sentence}\nAfter`, star, 'raw');
      const printed = bytes.toString('latin1');
      const raster = printed.indexOf('\x1b\x1dS');
      expect(raster).toBeGreaterThan(printed.indexOf('Before'));
      expect(printed.indexOf('After')).toBeGreaterThan(raster);
    },
  );

  it.each(sentences)('%s shows ink in the PNG preview', async (_, sentence) => {
    const blank = greyOf((await receiptAs('Before\n \nAfter', escpos, 'png')).bytes);
    const preview = greyOf((await receiptAs(`Before\n${sentence}\nAfter`, escpos, 'png')).bytes);
    expect(ink(preview)).toBeGreaterThan(ink(blank) + 200);
  });

  it('is the same picture in the SVG and the PDF previews', async () => {
    const document = 'Total | 12.50\nありがとうございました';
    const svg = (await receiptAs(document, escpos, 'svg')).bytes.toString();
    const drawnLine = await drawScriptLines(document, escpos, 'svg', 576);
    const image = /\{image:([^}]+)\}/.exec(drawnLine)![1]!;
    expect(svg).toContain(`data:image/png;base64,${image}`);
    const pdf = (await receiptAs(document, escpos, 'pdf')).bytes.toString('latin1');
    expect(pdf).toMatch(/\/Subtype\s*\/Image/);
  });
});

describe('the raster of a drawn line', () => {
  it('is the drawn pixels, black where darker than mid-grey, as GS v 0', async () => {
    const document = await drawScriptLines('ありがとう', escpos, 'raw', 576);
    const png = Buffer.from(/\{image:([^}]+)\}/.exec(document)![1]!, 'base64');
    const bitmap = pngToBitmap(png)!;
    expect(bitmap.width).toBe(576);
    const { bytes } = await receiptAs('ありがとう', escpos, 'raw');
    const printed = bytes.toString('latin1');
    const at = printed.indexOf('\x1dv0\x00');
    expect(bytes.readUInt16LE(at + 4)).toBe(72);
    expect(bytes.readUInt16LE(at + 6)).toBe(bitmap.height);
    const data = bytes.subarray(at + 8, at + 8 + 72 * bitmap.height);
    let dark = 0;
    for (const byte of data) for (let bit = 0; bit < 8; bit++) dark += (byte >> bit) & 1;
    expect(dark).toBe(bitmap.pixels.filter((grey) => grey < 128).length);
  });

  it("a template's own image (any PNG) still prints as GS v 0", async () => {
    const png = new Resvg(
      '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="8"><rect width="8" height="8"/></svg>',
      { font: { loadSystemFonts: false } },
    )
      .render()
      .asPng();
    expect(pngToBitmap(png)).toBeUndefined();
    const { bytes } = await receiptAs(`{image:${png.toString('base64')}}`, escpos, 'raw');
    const printed = bytes.toString('latin1');
    const at = printed.indexOf('\x1dv0');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(bytes.readUInt16LE(at + 4)).toBe(2);
    expect(bytes[at + 8]).toBe(0xff);
    expect(bytes[at + 9]).toBe(0x00);
  });
});

describe('text the printer holds stays text', () => {
  it('a Latin receipt is handed on as it came', async () => {
    const document = 'Café | 3.50\n€ 12,00 — merci';
    expect(await drawScriptLines(document, escpos, 'raw', 576)).toBe(document);
    const { bytes } = await receiptAs(document, { ...escpos, codepage: 'cp858' }, 'raw');
    expect(bytes.toString('latin1')).not.toContain('\x1dv0');
  });

  it('only the lines that need it are drawn', async () => {
    const document = 'Coffee | 3.50\nありがとう\nTotal | 3.50';
    const lines = (await drawScriptLines(document, escpos, 'raw', 576)).split('\n');
    expect(lines[0]).toBe('Coffee | 3.50');
    expect(lines[1]).toMatch(/^\{image:/);
    expect(lines[2]).toBe('Total | 3.50');
  });

  it.each([
    ['shiftjis', 'ありがとうございました'],
    ['gb18030', '谢谢光临，欢迎再来'],
    ['big5', '謝謝光臨'],
  ] as const)('a printer in %s mode prints %s as text', async (multibyte, sentence) => {
    const profile: PrinterProfile = { ...escpos, multibyte };
    const { bytes } = await receiptAs(`Total\n${sentence}`, profile, 'raw');
    const printed = bytes.toString('latin1');
    expect(printed).not.toContain('\x1dv0');
    expect(printed).toContain(iconv.encode(sentence, multibyte).toString('latin1'));
  });

  it('a line the multibyte mode lacks (Thai on a Kanji printer) is still drawn', async () => {
    const profile: PrinterProfile = { ...escpos, multibyte: 'shiftjis' };
    const { bytes } = await receiptAs('ありがとう\nขอบคุณ', profile, 'raw');
    const printed = bytes.toString('latin1');
    expect(printed).toContain(iconv.encode('ありがとう', 'shiftjis').toString('latin1'));
    expect(printed).toContain('\x1dv0');
  });

  it('plain text keeps every character as UTF-8', async () => {
    const { bytes } = await receiptAs('ありがとう', escpos, 'text');
    expect(bytes.toString('utf8')).toContain('ありがとう');
  });
});
