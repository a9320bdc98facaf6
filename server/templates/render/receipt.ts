import iconv from 'iconv-lite';
import { PNG } from 'pngjs';
import receiptline from 'receiptline';
import {
  type Codepage,
  defaultColumns,
  type Multibyte,
  type PrinterProfile,
} from '../../../shared/printer-profiles.ts';
import { checkedCodes } from './barcodes.ts';
import { printsAsText, toCodepage } from './codepage.ts';
import { layOutColumns } from './column-layout.ts';
import { escapeReceiptLine } from './escape.ts';
import { pngToBitmap } from './png.ts';
import { bitmapToEscposRaster } from './raster.ts';

/**
 * A ReceiptLine document (the receipt template, rendered by Liquid) in each printer's
 * language, by the npm package receiptline: ESC/POS, StarPRNT, plain text and SVG (the
 * source of the PDF, `pdf.ts`; the PNG and a ZPL graphic are drawn by `raster-receipt.ts`).
 */

/** ESC p 0 25 250: the drawer kick of ESC/POS printers, pin 2, 50 ms on, 500 ms off. */
const escposDrawer = '\x1bp\x00\x19\xfa';
/** BEL: StarPRNT's drawer kick (peripheral 1). */
const starDrawer = '\x07';

/** Characters a line holds for the profile. */
export function columnsOf(profile: PrinterProfile): number {
  if (profile.columns !== undefined) return profile.columns;
  const width = profile.width_mm;
  if (typeof width === 'number' && width in defaultColumns) {
    return defaultColumns[width as keyof typeof defaultColumns];
  }
  // A label's width: 12-dot columns at 8 dots a mm (203 dpi), 33 on a 50 mm label.
  if (typeof width === 'number') return Math.max(16, Math.floor((width * 8) / 12));
  return typeof width === 'string' ? 64 : 48;
}

const codepageOf = (profile: PrinterProfile): Codepage => profile.codepage ?? 'cp437';

/**
 * The encoding a receipt is printed in: the profile's multibyte mode (Kanji, GB18030, Big5,
 * KS C 5601) when the document holds text that the mode prints and the code page does not,
 * else the code page, so a Latin receipt prints the same bytes on every profile.
 */
function encodingOf(document: string, profile: PrinterProfile): Codepage | Multibyte {
  const codepage = codepageOf(profile);
  const multibyte = profile.multibyte;
  if (multibyte === undefined || /^[\x20-\x7e\r\n\t]*$/.test(document)) return codepage;
  for (const char of document) {
    if (!printsAsText(codepage, char) && printsAsText(multibyte, char, false)) return multibyte;
  }
  return codepage;
}

/** A QR code as receiptline gives it to a command set. */
interface QrSymbol {
  data: string;
  cell: number;
  level: 'l' | 'm' | 'q' | 'h';
}

const little = (n: number) => String.fromCharCode(n & 255, (n >> 8) & 255);

/**
 * ESC/POS's own QR code (GS ( k, model 2): the printer draws it. receiptline draws it as a
 * raster image instead, which costs about 2 ms of a receipt's 2.5 ms; every ESC/POS printer
 * of the last decade (TM-T20, T88V on) has the command. (A profile never prints upside down,
 * the one case receiptline's image handles that this does not.)
 */
function nativeQrcode(symbol: QrSymbol, encoding: string): string {
  const data = iconv
    .encode(symbol.data, encoding === 'multilingual' ? 'ascii' : encoding)
    .toString('latin1');
  if (data.length === 0) return '';
  const level = { l: 48, m: 49, q: 50, h: 51 }[symbol.level] ?? 48;
  return (
    `\x1d(k${little(4)}1A2\x00` + // model 2
    `\x1d(k${little(3)}1C${String.fromCharCode(Math.min(16, Math.max(1, symbol.cell)))}` +
    `\x1d(k${little(3)}1E${String.fromCharCode(level)}` +
    `\x1d(k${little(data.length + 3)}1P0${data}` +
    `\x1d(k${little(3)}1Q0`
  );
}

/** An image's rows packed eight dots a byte, the leftmost in the high bit, black set. */
export function packedRows(image: string): { rowBytes: number; height: number; rows: string } {
  const png = PNG.sync.read(Buffer.from(image, 'base64'));
  const rowBytes = (png.width + 7) >> 3;
  const packed = Buffer.alloc(rowBytes * png.height);
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      // prepareImages (images.ts) made every image black and white: its red channel says.
      if (png.data[(y * png.width + x) * 4]! < 128)
        packed[y * rowBytes + (x >> 3)]! |= 0x80 >> (x & 7);
    }
  }
  return { rowBytes, height: png.height, rows: packed.toString('latin1') };
}

/** Rows of one raster command: within every printer's buffer (ReceiptLine's own splits). */
const rasterBand = { escpos: 512, starprnt: 2400 };

/**
 * An image, already one bit a dot (`images.ts`), as ESC/POS's raster bit image
 * (`GS v 0 m xL xH yL yH d…`, normal density; ESC a aligns it) in bands of rows.
 * ReceiptLine's own image command dithers again, through a gamma that turns solid black
 * into a pattern; the dots here are those of the previews.
 */
function escposImage(image: string): string {
  // A line drawn by script-lines.ts, straight from its pixels (no PNG decoder).
  const bitmap = pngToBitmap(Buffer.from(image, 'base64'));
  if (bitmap) return bitmapToEscposRaster(bitmap);
  const { rowBytes, height, rows } = packedRows(image);
  let out = '';
  for (let y = 0; y < height; y += rasterBand.escpos) {
    const band = Math.min(rasterBand.escpos, height - y);
    out += `\x1dv0\x00${little(rowBytes)}${little(band)}`;
    out += rows.slice(y * rowBytes, (y + band) * rowBytes);
  }
  return out;
}

/** The same image as StarPRNT's raster command (`ESC GS S m xL xH yL yH n d…`, m 1, n 0). */
function starImage(image: string): string {
  const { rowBytes, height, rows } = packedRows(image);
  let out = '';
  for (let y = 0; y < height; y += rasterBand.starprnt) {
    const band = Math.min(rasterBand.starprnt, height - y);
    out += `\x1b\x1dS\x01${little(rowBytes)}${little(band)}\x00`;
    out += rows.slice(y * rowBytes, (y + band) * rowBytes);
  }
  return out;
}

/** The printer commands for an ESC/POS or StarPRNT printer, as bytes. */
export function receiptToPrinter(document: string, profile: PrinterProfile): Buffer {
  const encoding = encodingOf(document, profile);
  const star = profile.language === 'starprnt';
  const multibyte = encoding !== codepageOf(profile);
  const base = receiptline.commands[star ? (multibyte ? 'starmbcs' : 'starsbcs') : 'escpos'];
  // Every barcode and QR code checked before its command is made (barcodes.ts).
  const command = checkedCodes({
    ...base,
    ...(!star && { qrcode: nativeQrcode }),
    image: star ? starImage : escposImage,
    // `cut: false` (a printer without a cutter) drops the template's own cuts (`=`) too.
    ...(profile.cut === false && { cut: () => '' }),
  });
  // Laid out after the code page: `€` spelled `EUR` is three characters wide.
  const cpl = columnsOf(profile);
  const printed = layOutColumns(toCodepage(document, encoding, escapeReceiptLine), cpl);
  const commands = receiptline.transform(printed, {
    command,
    cpl,
    encoding,
    cutting: profile.cut ?? true,
    spacing: true,
  });
  const drawer = profile.drawer ? (star ? starDrawer : escposDrawer) : '';
  return Buffer.from(commands + drawer, 'latin1');
}

/** The receipt as plain text, a line per printed line (UTF-8). */
export function receiptToText(document: string, profile: PrinterProfile): string {
  const cpl = columnsOf(profile);
  return receiptline.transform(layOutColumns(document, cpl), { command: 'text', cpl });
}

/**
 * The receipt as SVG, 12 px a character (576 px for 48 columns: an 80 mm roll at 203 dpi).
 * receiptline's SVG imports a web font; that line is dropped so that nothing is fetched:
 * the font is the project's (fonts.ts).
 */
export function receiptToSvg(document: string, profile: PrinterProfile): string {
  const cpl = columnsOf(profile);
  const svg = receiptline.transform(layOutColumns(document, cpl), {
    command: 'svg',
    cpl,
    spacing: true,
  });
  return mergeCharacters(svg.replace(/<style[\s\S]*?<\/style>/, ''));
}

/** A run of receiptline's one-character `<tspan x="…">`s (a character or an entity each). */
const characterRun = /(?:<tspan x="[\d.]+">(?:[^<&]|&[a-z#0-9]+;)<\/tspan>)+/g;
const oneCharacter = /<tspan x="([\d.]+)">([^<]*)<\/tspan>/g;

/**
 * receiptline writes every character as its own `<tspan x="…">`; a run of them becomes one
 * `<tspan>` with the list of x positions (SVG 1.1 §10.5), drawn the same. The PDF (whose
 * converter handles each text element on its own) costs about a quarter as much.
 * Characters that are not one UTF-16 unit or entity are left as they were.
 */
function mergeCharacters(svg: string): string {
  return svg.replace(characterRun, (run) => {
    const xs: string[] = [];
    let text = '';
    for (const [, x, char] of run.matchAll(oneCharacter)) {
      xs.push(x!);
      text += char;
    }
    return `<tspan x="${xs.join(' ')}">${text}</tspan>`;
  });
}
