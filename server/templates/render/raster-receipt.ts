import receiptline from 'receiptline';
import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import { layOutColumns } from './column-layout.ts';
import type { Bitmap } from './raster.ts';
import {
  dot,
  normal,
  paint,
  pngSize,
  type Receipt,
  stroke,
  type TextStyle,
} from './raster-drawing.ts';
import { columnsOf } from './receipt.ts';
import { darkRuns, type RuleMethod, rulePaths, textScale } from './receipt-layout.ts';

/**
 * A receipt drawn straight into a bitmap (the PNG preview, a receipt on a ZPL label printer),
 * by a receiptline command set of its own modelled on receiptline's SVG one (`_svg`).
 *
 * Why not resvg on the receipt's SVG, as before: resvg laid out every character of every
 * receipt. A 30-line receipt's PNG (bench/templates.ts) cost ~85 ms: ~47 ms parsing and text
 * layout, ~33 ms rendering, ~15 ms PNG encoding. A receipt is a grid of 12 × 24-dot cells,
 * so each glyph is rendered once by resvg (glyphs.ts) and copied where it is printed; rules,
 * codes and bars are rectangles. The same PNG now costs ~6 ms of CPU (bench p50 8 ms at load
 * average 11, 102 ms before at 7), its ZPL graphic ~7 ms of CPU against ~120. The first
 * receipt in a process pays for its glyphs, a few hundred ms once.
 *
 * Everything is recorded in receiptline's dots first (its SVG's user units) and painted once
 * the receipt's height is known, `scale` pixels a dot.
 */

/**
 * The receipt (a ReceiptLine document) as a grayscale bitmap `width` pixels wide, as high as
 * the receipt at that scale (the sizes resvg gave the receipt's SVG: receipt.ts
 * `receiptToSvg`, with the same receiptline options).
 */
export async function receiptToBitmap(
  document: string,
  profile: PrinterProfile,
  width: number,
): Promise<Bitmap> {
  const receipt: Receipt = { width: 0, height: 0, drawings: [] };
  const cpl = columnsOf(profile);
  receiptline.transform(layOutColumns(document, cpl), {
    command: rasterCommand(receipt),
    cpl,
    spacing: true,
  });
  return paint(receipt, width);
}

type Command = receiptline.BaseCommand;
const base = receiptline.commands.base;

/** The command set's state: the receipt drawn so far, and the line it is on. */
interface RasterState {
  receipt: Receipt;
  lineMargin: number;
  lineAlign: number;
  lineWidth: number;
  lineHeight: number;
  textPosition: number;
  feedMinimum: number;
  spacing: boolean;
  style: TextStyle;
  line: { style: TextStyle; chars: string[]; xs: number[] }[];
}

/**
 * The command set: receiptline calls it line by line; it records drawings in `receipt`. The
 * methods are grouped by what they draw.
 */
function rasterCommand(receipt: Receipt): Command {
  const state: RasterState = {
    receipt,
    lineMargin: 0,
    lineAlign: 0,
    lineWidth: 0,
    lineHeight: 1,
    textPosition: 0,
    feedMinimum: 0,
    spacing: false,
    style: normal,
    line: [],
  };
  return {
    ...base,
    ...layoutMethods(state),
    ...ruleMethods(state),
    ...textMethods(state),
    ...imageAndCodeMethods(state),
  };
}

/** The receipt and the line's geometry: print area, alignment, position. */
function layoutMethods(
  state: RasterState,
): Pick<Command, 'open' | 'close' | 'area' | 'align' | 'absolute' | 'relative'> {
  return {
    open(printer) {
      state.receipt.width = (printer.cpl as number) * dot;
      state.lineWidth = printer.cpl as number;
      state.spacing = printer.spacing as boolean;
      state.feedMinimum = dot * (state.spacing ? 2.5 : 2);
      return '';
    },
    close: () => '',
    area(left, width) {
      state.lineMargin = left;
      state.lineWidth = width;
      return '';
    },
    align(align) {
      state.lineAlign = align;
      return '';
    },
    absolute(position) {
      state.textPosition = position;
      return '';
    },
    relative(position) {
      state.textPosition += position;
      return '';
    },
  };
}

/** Rules and the paper cut. */
function ruleMethods(
  state: RasterState,
): Pick<Command, 'hr' | 'vr' | 'vrstart' | 'vrstop' | 'vrhr' | 'vrlf' | 'cut'> {
  return {
    hr: (width) => drawRule(state, 'hr', width),
    vr: (widths, height) => drawRule(state, 'vr', widths, height),
    vrstart: (widths) => drawRule(state, 'vrstart', widths),
    vrstop: (widths) => drawRule(state, 'vrstop', widths),
    vrhr: (widths1, widths2, dl, dr) => drawRule(state, 'vrhr', widths1, widths2, dl, dr),
    vrlf(vr) {
      state.feedMinimum = dot * (!vr && state.spacing ? 2.5 : 2);
      return lineFeed(state);
    },
    cut: () => drawCut(state),
  };
}

/** Rules as receiptline's SVG draws them: its own paths, stroked 2 dots wide. */
function drawRule(state: RasterState, method: RuleMethod, ...args: (number | number[])[]): string {
  const { receipt } = state;
  for (const { x, y, d } of rulePaths(method, args, state.lineMargin, receipt.height)) {
    stroke(receipt.drawings, x, y, d);
  }
  return '';
}

function drawCut(state: RasterState): string {
  const { receipt } = state;
  // The scissors, then a line dashed 2 on, 2 off from x = 24 (receiptline's SVG).
  receipt.drawings.push({ kind: 'scissors', y: receipt.height });
  for (let x = 24; x < receipt.width; x += 4) {
    const y = receipt.height + 12;
    receipt.drawings.push({
      kind: 'rect',
      x0: x,
      y0: y - 1,
      x1: Math.min(x + 2, receipt.width),
      y1: y + 1,
    });
  }
  return lineFeed(state);
}

/** Text and its decorations, and the line feed that places the line. */
function textMethods(
  state: RasterState,
): Pick<Command, 'ul' | 'em' | 'iv' | 'wh' | 'normal' | 'text' | 'lf' | 'command'> {
  const decorate = (change: Partial<TextStyle>) => {
    state.style = { ...state.style, ...change };
    return '';
  };
  return {
    ul: () => decorate({ underline: true }),
    em: () => decorate({ bold: true }),
    iv: () => decorate({ invert: true }),
    wh(wh) {
      const { wide, high } = textScale(wh);
      state.style = { ...state.style, wide, high };
      state.lineHeight = Math.max(state.lineHeight, high);
      return '';
    },
    normal() {
      state.style = normal;
      return '';
    },
    text: (text, encoding) => addText(state, text, encoding),
    lf: () => lineFeed(state),
    command: () => '',
  };
}

/** Each character centred in its cells, at receiptline's SVG's x (in its scaled units). */
function addText(state: RasterState, text: string, encoding: receiptline.Encoding): string {
  const { style } = state;
  const chars = base.arrayFrom(text, encoding);
  const xs: number[] = [];
  let p = state.textPosition;
  for (const char of chars) {
    const q = base.measureText(char, encoding) * style.wide;
    xs.push(Math.floor(((p + q / 2) * dot) / style.wide) * style.wide);
    p += q;
  }
  state.line.push({ style, chars, xs });
  state.textPosition += base.measureText(text, encoding) * style.wide;
  return '';
}

function lineFeed(state: RasterState): string {
  const { receipt } = state;
  const h = state.lineHeight * dot * 2;
  for (const text of state.line) {
    const xs = text.xs.map((x) => state.lineMargin * dot + x);
    receipt.drawings.push({ kind: 'text', ...text, xs, y: receipt.height + h });
  }
  receipt.height += Math.max(h, state.feedMinimum);
  state.lineHeight = 1;
  state.line = [];
  state.textPosition = 0;
  return '';
}

/** Images, QR codes and barcodes: blocks placed by the line's alignment. */
function imageAndCodeMethods(state: RasterState): Pick<Command, 'image' | 'qrcode' | 'barcode'> {
  return {
    image: (image) => drawImage(state, image),
    qrcode: (symbol) => drawQrCode(state, symbol),
    barcode: (symbol, encoding) => drawBarcode(state, symbol, encoding),
  };
}

/** Where a block `width` dots wide starts on the line, by the line's alignment. */
function blockStart(state: RasterState, width: number): number {
  return Math.floor(
    state.lineMargin * dot + ((state.lineWidth * dot - width) * state.lineAlign) / 2,
  );
}

function drawImage(state: RasterState, image: string): string {
  const { receipt } = state;
  const { width, height } = pngSize(image);
  receipt.drawings.push({
    kind: 'image',
    base64: image,
    width,
    height,
    x: blockStart(state, width),
    y: receipt.height,
  });
  receipt.height += height;
  return '';
}

function drawQrCode(state: RasterState, symbol: receiptline.QRCode): string {
  const { receipt } = state;
  if (symbol.data.length === 0) return '';
  const matrix = receiptline.qrcode.generate({ ...symbol, type: 'qrcode' });
  const cell = symbol.cell;
  const x0 = blockStart(state, matrix.length * cell);
  // A run of dark modules is one rectangle.
  for (const { row, start, end } of darkRuns(matrix)) {
    receipt.drawings.push({
      kind: 'rect',
      x0: x0 + start * cell,
      y0: receipt.height + row * cell,
      x1: x0 + end * cell,
      y1: receipt.height + (row + 1) * cell,
    });
  }
  receipt.height += matrix.length * cell;
  return '';
}

function drawBarcode(
  state: RasterState,
  symbol: receiptline.Barcode,
  encoding: receiptline.Encoding,
): string {
  const { receipt } = state;
  const bar = receiptline.barcode.generate(symbol);
  if (!('length' in bar)) return '';
  const height = bar.height + (bar.hri ? dot * 2 + 2 : 0);
  const x0 = blockStart(state, bar.length);
  let x = x0;
  bar.widths.forEach((width, i) => {
    if (i % 2 === 1) {
      const y0 = receipt.height;
      receipt.drawings.push({ kind: 'rect', x0: x, y0, x1: x + width, y1: y0 + bar.height });
    }
    x += width;
  });
  if (bar.hri) {
    const chars = base.arrayFrom(bar.text, encoding);
    const m = Math.floor((bar.length - (base.measureText(bar.text, encoding) - 1) * dot) / 2);
    const xs = chars.map((_, i) => x0 + m + dot * i);
    receipt.drawings.push({
      kind: 'text',
      style: normal,
      chars,
      xs,
      y: receipt.height + height,
    });
  }
  receipt.height += height;
  return '';
}
