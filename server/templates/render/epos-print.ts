import receiptline from 'receiptline';
import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import { checkedCodes } from './barcodes.ts';
import { layOutColumns } from './column-layout.ts';
import { eposPrintNamespace } from './epos-print-namespace.ts';
import { escapeXml } from './escape.ts';
import { columnsOf, packedRows } from './receipt.ts';

/**
 * A ReceiptLine document as ePOS-Print XML, the job an Epson printer takes from Server Direct
 * Print (docs/cloudprnt.md): `<text>` with its styles at its place on the line, `<feed/>` at
 * each line's end, `<barcode>`, `<symbol>` (QR code), `<image>` (one bit a dot, base64) and
 * `<cut>`. ReceiptLine lays the lines out (columns, rules, wrapping) and calls this command
 * set, as it calls ESC/POS's. Every text and attribute value passes `escapeXml`: data is
 * never markup.
 */

/** Dots a character is wide in font A: 48 characters on an 80 mm roll's 576 dots. */
const charDots = 12;

/** ePOS-Print's barcode type for ReceiptLine's symbology and the data's length. */
function barcodeType(type: string, data: string): string | undefined {
  const short = data.length < 9;
  switch (type) {
    case 'upc':
      return short ? 'upc_e' : 'upc_a';
    case 'ean':
    case 'jan':
      return short ? 'ean8' : 'ean13';
    case 'nw7':
    case 'codabar':
      return 'codabar';
    case 'code39':
    case 'itf':
    case 'code93':
    case 'code128':
      return type;
    default:
      return undefined;
  }
}

/**
 * CODE128 data in ePOS-Print starts with its code set (`{B`: all of printable ASCII), and a
 * `{` of the data is written `{{`, so that the data cannot switch the code set itself.
 */
const barcodeData = (type: string, data: string) =>
  type === 'code128' ? `{B${data.replace(/\{/g, '{{')}` : data;

interface Style {
  em: boolean;
  ul: boolean;
  reverse: boolean;
  width: number;
  height: number;
}

const plain: Style = { em: false, ul: false, reverse: false, width: 1, height: 1 };

/** One run of text on the line being built: where it starts (in characters) and its style. */
interface Piece {
  at: number;
  text: string;
  style: Style;
}

const textElement = ({ at, text, style }: Piece) =>
  `<text x="${at * charDots}" em="${style.em}" ul="${style.ul}" reverse="${style.reverse}" width="${style.width}" height="${style.height}">${escapeXml(text)}</text>`;

/** ReceiptLine's `wh` (0 to 7) as character width and height, as ESC/POS's `GS !` reads it. */
const scaled = (wh: number) =>
  wh < 3 ? { width: (wh & 1) + 1, height: ((wh >> 1) & 1) + 1 } : { width: wh - 1, height: wh - 1 };

const alignments = ['left', 'center', 'right'];
const qrLevels: Record<string, string> = { l: 'level_l', m: 'level_m', q: 'level_q', h: 'level_h' };

/** An image, already one bit a dot (`images.ts`), as `<image>` raster: black set, base64. */
function imageElement(image: string): string {
  const { rowBytes, height, rows } = packedRows(image);
  const data = Buffer.from(rows, 'latin1').toString('base64');
  return `<image width="${rowBytes * 8}" height="${height}" color="color_1" mode="mono">${data}</image>`;
}

/** A QR code as `<symbol>`, model 2, its cell size in dots (1 to 16). */
function symbolElement(symbol: { data: string; cell: number; level: string }): string {
  if (symbol.data.length === 0) return '';
  const level = qrLevels[symbol.level] ?? 'level_m';
  const cell = Math.min(16, Math.max(1, symbol.cell));
  return `<symbol type="qrcode_model_2" level="${level}" width="${cell}" height="0" size="0">${escapeXml(symbol.data)}</symbol>`;
}

interface BarcodeSymbol {
  data: string;
  type: string;
  width: number;
  height: number;
  hri: boolean;
}

/** A barcode as `<barcode>`, its human-readable text below it when the template asks. */
function barcodeElement(symbol: BarcodeSymbol): string {
  const type = barcodeType(symbol.type, symbol.data);
  if (!type || symbol.data.length === 0) return '';
  return `<barcode type="${type}" hri="${symbol.hri ? 'below' : 'none'}" font="font_a" width="${symbol.width}" height="${symbol.height}">${escapeXml(barcodeData(type, symbol.data))}</barcode>`;
}

/** ePOS-Print's commands for ReceiptLine; a fresh one for each document (it keeps the line). */
function eposCommands(profile: PrinterProfile) {
  const base = receiptline.commands.base;
  const rules = receiptline.commands.text.vrtable as Record<string, Record<string, string>>;
  let left = 0;
  let position = 0;
  let style = plain;
  let pieces: Piece[] = [];
  const put = (text: string, width = text.length) => {
    pieces.push({ at: left + position, text, style });
    position += width;
    return '';
  };
  // A `=` on the last line has cut the paper: the end of the document does not cut it again.
  let cutLast = false;
  const cut = () => {
    cutLast = true;
    return profile.cut === false ? '' : '<cut type="feed"/>';
  };
  const lf = () => {
    cutLast = false;
    const line = pieces.map(textElement).join('');
    pieces = [];
    position = 0;
    return `${line}<feed/>`;
  };
  const ruled = (widths: number[], end: string, joint: string, start: string) =>
    widths.reduce((a, w) => `${a}${'-'.repeat(w)}${joint}`, start).slice(0, -1) + end;
  return {
    ...base,
    open: () => '',
    close: () => (cutLast ? '' : cut()),
    area: (l: number) => {
      left = l;
      return '';
    },
    align: (align: number) => `<text align="${alignments[align] ?? 'left'}"/>`,
    absolute: (p: number) => {
      position = p;
      return '';
    },
    relative: (p: number) => {
      position += Math.round(p);
      return '';
    },
    hr: (width: number) => put('-'.repeat(width)),
    vr: (widths: number[]) => {
      put('|');
      for (const w of widths) {
        position += w;
        put('|');
      }
      return '';
    },
    vrstart: (widths: number[]) => put(ruled(widths, '+', '+', '+')),
    vrstop: (widths: number[]) => put(ruled(widths, '+', '+', '+')),
    vrhr: (widths1: number[], widths2: number[], dl: number, dr: number) => {
      const r1 = `${' '.repeat(Math.max(-dl, 0))}${ruled(widths1, '+', '+', '+')}${' '.repeat(Math.max(dr, 0))}`;
      const r2 = `${' '.repeat(Math.max(dl, 0))}${ruled(widths2, '+', '+', '+')}${' '.repeat(Math.max(-dr, 0))}`;
      return put([...r2].map((c, i) => rules[c]?.[r1[i] ?? ' '] ?? c).join(''));
    },
    vrlf: lf,
    lf,
    cut,
    ul: () => {
      style = { ...style, ul: true };
      return '';
    },
    em: () => {
      style = { ...style, em: true };
      return '';
    },
    iv: () => {
      style = { ...style, reverse: true };
      return '';
    },
    wh: (wh: number) => {
      style = { ...style, ...scaled(wh) };
      return '';
    },
    normal: () => {
      style = plain;
      return '';
    },
    text: (text: string, encoding: Parameters<typeof base.measureText>[1]) =>
      put(text, base.measureText(text, encoding) * style.width),
    command: () => '',
    image: imageElement,
    qrcode: symbolElement,
    barcode: barcodeElement,
  };
}

export { eposPrintNamespace };

/** The receipt as an `<epos-print>` document (UTF-8 text), a cash drawer pulse at its end. */
export function receiptToEposPrint(document: string, profile: PrinterProfile): string {
  const cpl = columnsOf(profile);
  // Every barcode and QR code checked before its element is made (barcodes.ts).
  const command = checkedCodes(eposCommands(profile));
  const body = receiptline.transform(layOutColumns(document, cpl), {
    command,
    cpl,
    cutting: profile.cut ?? true,
    spacing: true,
  });
  const drawer = profile.drawer ? '<pulse drawer="drawer_1" time="pulse_100"/>' : '';
  return `<epos-print xmlns="${eposPrintNamespace}">${body}${drawer}</epos-print>`;
}
