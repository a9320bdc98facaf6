import { describe, expect, it } from 'vitest';
import { receiptAs } from '../../server/templates/render/draw.ts';
import { scriptFonts } from '../../server/templates/render/script-fonts.ts';
import { drawScriptLines } from '../../server/templates/render/script-lines.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { darkIn, type Grey, greyOf } from './png-pixels.ts';

/**
 * A line drawn in a script the code page lacks (server/templates/render/script-lines.ts) keeps
 * the emphasis and size its markup gives, as the printer prints text: `"` bold, `^` double
 * width, `^^` double height, `^^^` both. Compared by pixels with the same line drawn plain.
 */

const escpos: PrinterProfile = { language: 'escpos', width_mm: 80 };
const words = 'ありがとう';

/** The picture of a one-line document's drawn line, as grey pixels. */
async function drawn(line: string): Promise<Grey> {
  const document = await drawScriptLines(line, escpos, 'raw', 576);
  const image = /^\{image:([A-Za-z0-9+/=]+)\}$/.exec(document);
  expect(image, `${line} is drawn`).not.toBeNull();
  return greyOf(Buffer.from(image![1]!, 'base64'));
}

const ink = (grey: Grey) => darkIn(grey, 0, 0, grey.width, grey.height);

/** The width and height of the box around the picture's ink. */
function inkBox(grey: Grey): { width: number; height: number } {
  const [xs, ys] = [[] as number[], [] as number[]];
  for (let y = 0; y < grey.height; y++) {
    for (let x = 0; x < grey.width; x++) {
      if (grey.pixels[y * grey.width + x]! < 128) {
        xs.push(x);
        ys.push(y);
      }
    }
  }
  return {
    width: Math.max(...xs) - Math.min(...xs) + 1,
    height: Math.max(...ys) - Math.min(...ys) + 1,
  };
}

/** Twice, give or take the dot antialiasing rounds to either side of an edge. */
const twice = (scaled: number, plain: number) => {
  expect(scaled / plain).toBeGreaterThan(1.9);
  expect(scaled / plain).toBeLessThan(2.1);
};

describe('a drawn line in the style of its markup', () => {
  it('bold (") is drawn with heavier strokes in the same place', async () => {
    const [plain, bold] = [await drawn(words), await drawn(`"${words}"`)];
    expect(bold.height).toBe(plain.height);
    expect(ink(bold)).toBeGreaterThan(ink(plain) * 1.2);
    expect(inkBox(bold).width - inkBox(plain).width).toBeLessThanOrEqual(3);
  });

  it('double width (^) is drawn twice as wide, as tall as plain', async () => {
    const [plain, wide] = [inkBox(await drawn(words)), await drawn(`^${words}`)];
    expect(wide.height).toBe(34);
    twice(inkBox(wide).width, plain.width);
    expect(Math.abs(inkBox(wide).height - plain.height)).toBeLessThanOrEqual(1);
  });

  it('double height (^^) is drawn on a row twice as tall, as wide as plain', async () => {
    const [plain, tall] = [inkBox(await drawn(words)), await drawn(`^^${words}`)];
    expect(tall.height).toBe(68);
    twice(inkBox(tall).height, plain.height);
    expect(Math.abs(inkBox(tall).width - plain.width)).toBeLessThanOrEqual(1);
  });

  it('double size (^^^) is drawn twice as wide and twice as tall', async () => {
    const [plain, both] = [inkBox(await drawn(words)), await drawn(`^^^${words}`)];
    expect(both.height).toBe(68);
    twice(inkBox(both).width, plain.width);
    twice(inkBox(both).height, plain.height);
  });

  it('a line too wide at double width is drawn at normal width, on one row', async () => {
    // 20 characters of 22 dots fit 576 dots; at double width they would not.
    const long = 'ありがとうございました。またお越しください';
    const [plain, wide] = [await drawn(long), await drawn(`^${long}`)];
    expect(wide.height).toBe(34);
    expect(Buffer.from(wide.pixels).equals(Buffer.from(plain.pixels))).toBe(true);
  });

  it('the printer gets the double-height line as a raster 68 dots high', async () => {
    const { bytes } = await receiptAs(`^^${words}`, escpos, 'raw');
    const at = bytes.toString('latin1').indexOf('\x1dv0\x00');
    expect(at).toBeGreaterThanOrEqual(0);
    expect(bytes.readUInt16LE(at + 6)).toBe(68);
  });

  it('the glyphs a thread keeps drawn stay within 16 MiB, whatever their sizes', async () => {
    // 600 different characters six times as tall (32 KiB each) would keep 19 MiB.
    const many = Array.from({ length: 600 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
    const picture = await drawn(`^^^^^^^${many}`);
    expect(ink(picture)).toBeGreaterThan(0);
    const kept = (await scriptFonts()).keptBytes();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});
