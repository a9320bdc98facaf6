import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { InvalidFields } from '../../server/domain-errors.ts';
import { imageHeader } from '../../server/templates/render/image-header.ts';
import { dither } from '../../server/templates/render/images.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../shared/templates.ts';
import { pdfFirstPage } from '../helpers/system-programs.ts';
import { darkIn, greyOf } from './png-pixels.ts';

/**
 * A logo as the tests print it, `width` × 120 px: its top 60 rows mid-grey (128), its bottom
 * 60 black; as RGBA.
 */
function logoPixels(width: number): { width: number; height: number; data: Buffer } {
  const height = 120;
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4;
      const level = y < 60 ? 128 : 0;
      data[at] = level;
      data[at + 1] = level;
      data[at + 2] = level;
      data[at + 3] = 255;
    }
  }
  return { width, height, data };
}

const pngLogo = (width = 300) => {
  const image = logoPixels(width);
  const png = new PNG({ width: image.width, height: image.height });
  image.data.copy(png.data);
  return PNG.sync.write(png).toString('base64');
};
const jpegLogo = (width = 300) => jpeg.encode(logoPixels(width), 95).data.toString('base64');

const logoTemplate = { kind: 'receipt' as const, source: '{image:{{ logo }}}' };

const render = (logo: string, profile: PrinterProfile, format: PreviewFormat) =>
  renderDocument(logoTemplate, { logo }, profile, format);

/** A raster image read back from a command: rows of bits, 1 black, `rowBytes` a row. */
interface Raster {
  rowBytes: number;
  height: number;
  data: Buffer;
}

/** Every ESC/POS `GS v 0 m xL xH yL yH d…` in the bytes. */
function escposRasters(bytes: Buffer): Raster[] {
  const rasters: Raster[] = [];
  for (let at = bytes.indexOf('\x1dv0', 0, 'latin1'); at >= 0; ) {
    expect(bytes[at + 3]).toBe(0); // m: normal density
    const rowBytes = bytes.readUInt16LE(at + 4);
    const height = bytes.readUInt16LE(at + 6);
    const data = bytes.subarray(at + 8, at + 8 + rowBytes * height);
    expect(data.length).toBe(rowBytes * height);
    rasters.push({ rowBytes, height, data });
    at = bytes.indexOf('\x1dv0', at + 8 + rowBytes * height, 'latin1');
  }
  return rasters;
}

/** Every StarPRNT `ESC GS S m xL xH yL yH n d…` in the bytes. */
function starRasters(bytes: Buffer): Raster[] {
  const rasters: Raster[] = [];
  for (let at = bytes.indexOf('\x1b\x1dS', 0, 'latin1'); at >= 0; ) {
    expect(bytes[at + 3]).toBe(1); // m: one bit a dot
    const rowBytes = bytes.readUInt16LE(at + 4);
    const height = bytes.readUInt16LE(at + 6);
    expect(bytes[at + 8]).toBe(0); // n
    const data = bytes.subarray(at + 9, at + 9 + rowBytes * height);
    expect(data.length).toBe(rowBytes * height);
    rasters.push({ rowBytes, height, data });
    at = bytes.indexOf('\x1b\x1dS', at + 9 + rowBytes * height, 'latin1');
  }
  return rasters;
}

const isBlack = ({ rowBytes, data }: Raster, x: number, y: number) =>
  (data[y * rowBytes + (x >> 3)]! & (0x80 >> (x & 7))) !== 0;

/** Black dots of the raster in rows [y0, y1). */
function blackRows(raster: Raster, y0: number, y1: number): number {
  let count = 0;
  for (let y = y0; y < y1; y++) {
    for (let x = 0; x < raster.rowBytes * 8; x++) if (isBlack(raster, x, y)) count++;
  }
  return count;
}

/** The logo's halves as printed: the grey one near half ink, the black one all ink. */
function expectLogoInk(raster: Raster, width: number, tolerance = 0.03) {
  expect(blackRows(raster, 0, 60) / (width * 60)).toBeCloseTo(0.5, 1);
  expect(Math.abs(blackRows(raster, 0, 60) / (width * 60) - 0.5)).toBeLessThan(tolerance);
  expect(blackRows(raster, 60, 120)).toBeGreaterThanOrEqual(width * 60 * (1 - tolerance));
}

describe('dithering', () => {
  it('Floyd–Steinberg prints mid-grey as half its dots, white as none and black as all', () => {
    const [width, height] = [200, 100];
    for (const [level, ink] of [
      [128, 0.5],
      [64, 0.75],
      [255, 0],
      [0, 1],
    ] as const) {
      const { pixels } = dither(new Float32Array(width * height).fill(level), width, height);
      const black = pixels.filter((p) => p === 0).length;
      expect(pixels.every((p) => p === 0 || p === 255)).toBe(true);
      expect(Math.abs(black / pixels.length - ink)).toBeLessThan(0.01);
    }
  });
});

describe('a 300 px logo in each printer language', () => {
  it('ESC/POS: one GS v 0 raster, 38 bytes (300 dots) by 120 rows, the grey half ~50 % ink', async () => {
    const { bytes } = await render(pngLogo(), { language: 'escpos', width_mm: 80 }, 'raw');
    const rasters = escposRasters(bytes);
    expect(rasters).toHaveLength(1);
    expect(rasters[0]!.rowBytes).toBe(Math.ceil(300 / 8));
    expect(rasters[0]!.height).toBe(120);
    expectLogoInk(rasters[0]!, 300);
    // The dots past 300 in the last byte of a row are blank.
    expect(isBlack(rasters[0]!, 300, 100)).toBe(false);
  });

  it('StarPRNT: one ESC GS S raster of 38 bytes by 120 rows, the same dots as ESC/POS', async () => {
    const { bytes } = await render(pngLogo(), { language: 'starprnt', width_mm: 80 }, 'raw');
    const rasters = starRasters(bytes);
    expect(rasters).toHaveLength(1);
    expect(rasters[0]!.rowBytes).toBe(38);
    expect(rasters[0]!.height).toBe(120);
    const escpos = escposRasters((await render(pngLogo(), { language: 'escpos' }, 'raw')).bytes);
    expect(rasters[0]!.data.equals(escpos[0]!.data)).toBe(true);
  });

  it('ZPL: the ^GFA graphic counts its bytes right and holds the logo, grey half ~50 % ink', async () => {
    const { bytes } = await render(pngLogo(), { language: 'zpl', width_mm: 50 }, 'raw');
    const zpl = bytes.toString('latin1');
    const match = /\^GFA,(\d+),(\d+),(\d+),([0-9A-F]*)\^FS/.exec(zpl);
    expect(match).not.toBeNull();
    const [total, rowBytes, hex] = [Number(match![1]), Number(match![3]), match![4]!];
    expect(Number(match![2])).toBe(total);
    expect(rowBytes).toBe(50); // a 50 mm label at 203 dpi: 400 dots
    expect(hex.length).toBe(total * 2);
    const graphic: Raster = { rowBytes, height: total / rowBytes, data: Buffer.from(hex, 'hex') };
    expect(Number.isInteger(graphic.height)).toBe(true);
    // A receipt on a label is its 33 columns (396 dots) drawn across the label's 400: the
    // logo's 300 dots are 303 there, its 120 rows 121.
    const wide = Math.round((300 * 400) / 396);
    const rows = Array.from({ length: graphic.height }, (_, y) => blackRows(graphic, y, y + 1));
    const black = rows.filter((n) => n === wide).length;
    expect(black).toBeGreaterThanOrEqual(60);
    expect(black).toBeLessThanOrEqual(61);
    const grey = rows.filter((n) => n > 0 && n < wide);
    expect(grey.length).toBeGreaterThanOrEqual(59);
    const greyInk = grey.reduce((sum, n) => sum + n, 0) / (grey.length * wide);
    expect(Math.abs(greyInk - 0.5)).toBeLessThan(0.03);
  });

  it('an image wider than the paper is scaled to the printable width: 800 px on 58 mm is 384 dots', async () => {
    const { bytes } = await render(pngLogo(800), { language: 'escpos', width_mm: 58 }, 'raw');
    const [raster] = escposRasters(bytes);
    expect(raster!.rowBytes).toBe(48);
    expect(raster!.height).toBe(Math.round((120 * 384) / 800));
    // Mid-grey stays half ink, scaled or not.
    const greyRows = 28;
    expect(Math.abs(blackRows(raster!, 0, greyRows) / (384 * greyRows) - 0.5)).toBeLessThan(0.03);
  });

  it('a JPEG prints as the PNG does: its size from the SOF marker, its dots dithered', async () => {
    const logo = jpegLogo();
    expect(imageHeader(Buffer.from(logo, 'base64'))).toEqual({
      format: 'jpeg',
      width: 300,
      height: 120,
    });
    const [raster] = escposRasters((await render(logo, { language: 'escpos' }, 'raw')).bytes);
    expect(raster!.rowBytes).toBe(38);
    expect(raster!.height).toBe(120);
    // JPEG's blocks shift the grey a little: near half all the same.
    expectLogoInk(raster!, 300, 0.06);
  });

  it('a broken image, or one that is neither PNG nor JPEG, is a 422 on data naming it', async () => {
    const broken = `${pngLogo().slice(0, 60)}AAAAAAAAAAAAAAAAAAAA`;
    await expect(render(broken, { language: 'escpos' }, 'raw')).rejects.toThrow(
      /An image could not be decoded/,
    );
    const gif = 'R0lGODlhAQABAAAAACw=';
    const refusal = await render(gif, { language: 'escpos' }, 'raw').catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(InvalidFields);
    expect((refusal as InvalidFields).errors.data?.[0]).toMatch(/PNG or JPEG/);
  });
});

describe('the previews draw the dots the printer prints', () => {
  /** The ESC/POS logo's dots as rows of 0 (black) and 255. */
  async function printedDots(): Promise<Uint8Array> {
    const [raster] = escposRasters((await render(pngLogo(), { language: 'escpos' }, 'raw')).bytes);
    const dots = new Uint8Array(300 * 120);
    for (let y = 0; y < 120; y++) {
      for (let x = 0; x < 300; x++) dots[y * 300 + x] = isBlack(raster!, x, y) ? 0 : 255;
    }
    return dots;
  }

  /** The picture's pixels in the box [x0, x0 + 300) × [y0, y0 + 120), thresholded. */
  function box(picture: ReturnType<typeof greyOf>, x0: number, y0: number): Uint8Array {
    const dots = new Uint8Array(300 * 120);
    for (let y = 0; y < 120; y++) {
      for (let x = 0; x < 300; x++) {
        dots[y * 300 + x] = picture.pixels[(y0 + y) * picture.width + x0 + x]! < 128 ? 0 : 255;
      }
    }
    return dots;
  }

  /** Top-left of the logo in a picture: its black half is the only wholly dark rows. */
  function logoAt(picture: ReturnType<typeof greyOf>): { x: number; y: number } {
    let bottom = -1;
    let left = -1;
    for (let y = 0; y < picture.height; y++) {
      for (let x = 0; x < picture.width; x++) {
        if (picture.pixels[y * picture.width + x]! < 128) {
          bottom = y;
          if (left < 0 || x < left) left = x;
        }
      }
    }
    return { x: left, y: bottom - 119 };
  }

  it('PNG: the logo centred on the 576-dot roll, dot for dot as printed', async () => {
    const { bytes } = await render(pngLogo(), { language: 'escpos' }, 'png');
    const picture = greyOf(bytes);
    expect(picture.width).toBe(576);
    const at = logoAt(picture);
    expect(at.x).toBe((576 - 300) / 2);
    expect(box(picture, at.x, at.y)).toEqual(await printedDots());
    expect(darkIn(picture, 0, 0, 576, picture.height)).toBe(
      (await printedDots()).filter((p) => p === 0).length,
    );
  });

  it('SVG: the image it holds is the printed dots', async () => {
    const svg = (await render(pngLogo(), { language: 'escpos' }, 'svg')).bytes.toString('utf8');
    const embedded = /<image href="data:image\/png;base64,([A-Za-z0-9+/=]+)"/.exec(svg);
    expect(embedded).not.toBeNull();
    const picture = greyOf(Buffer.from(embedded![1]!, 'base64'));
    expect([picture.width, picture.height]).toEqual([300, 120]);
    expect(box(picture, 0, 0)).toEqual(await printedDots());
  });

  it('PDF: the page shows the logo, half ink above, black below', async () => {
    const { bytes } = await render(pngLogo(), { language: 'pdf', width_mm: 80 }, 'pdf');
    const page = greyOf(await pdfFirstPage(bytes, 203));
    const at = logoAt(page);
    const ink = (y0: number, y1: number) => darkIn(page, at.x, at.y + y0, at.x + 300, at.y + y1);
    expect(Math.abs(ink(0, 60) / (300 * 60) - 0.5)).toBeLessThan(0.1);
    expect(ink(62, 118)).toBeGreaterThan(300 * 56 * 0.95);
  });
});
