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

/** The command set: receiptline calls it line by line; it records drawings in `receipt`. */
function rasterCommand(receipt: Receipt) {
  const base = receiptline.commands.base;
  let lineMargin = 0;
  let lineAlign = 0;
  let lineWidth = 0;
  let lineHeight = 1;
  let textPosition = 0;
  let feedMinimum = 0;
  let spacing = false;
  let style: TextStyle = normal;
  let line: { style: TextStyle; chars: string[]; xs: number[] }[] = [];
  /** Where a block `width` dots wide starts on the line, by the line's alignment. */
  const blockStart = (width: number) =>
    Math.floor(lineMargin * dot + ((lineWidth * dot - width) * lineAlign) / 2);
  /** Rules as receiptline's SVG draws them: its own paths, stroked 2 dots wide. */
  const rule = (method: RuleMethod, ...args: (number | number[])[]) => {
    for (const { x, y, d } of rulePaths(method, args, lineMargin, receipt.height)) {
      stroke(receipt.drawings, x, y, d);
    }
    return '';
  };
  const decorate = (change: Partial<TextStyle>) => {
    style = { ...style, ...change };
    return '';
  };
  const lf = () => {
    const h = lineHeight * dot * 2;
    for (const text of line) {
      const xs = text.xs.map((x) => lineMargin * dot + x);
      receipt.drawings.push({ kind: 'text', ...text, xs, y: receipt.height + h });
    }
    receipt.height += Math.max(h, feedMinimum);
    lineHeight = 1;
    line = [];
    textPosition = 0;
    return '';
  };
  return {
    ...base,
    open(printer: { cpl: number; spacing: boolean }) {
      receipt.width = printer.cpl * dot;
      lineWidth = printer.cpl;
      spacing = printer.spacing;
      feedMinimum = dot * (spacing ? 2.5 : 2);
      return '';
    },
    close: () => '',
    area(left: number, width: number) {
      lineMargin = left;
      lineWidth = width;
      return '';
    },
    align(align: number) {
      lineAlign = align;
      return '';
    },
    absolute(position: number) {
      textPosition = position;
      return '';
    },
    relative(position: number) {
      textPosition += position;
      return '';
    },
    hr: (width: number) => rule('hr', width),
    vr: (widths: number[], height: number) => rule('vr', widths, height),
    vrstart: (widths: number[]) => rule('vrstart', widths),
    vrstop: (widths: number[]) => rule('vrstop', widths),
    vrhr: (widths1: number[], widths2: number[], dl: number, dr: number) =>
      rule('vrhr', widths1, widths2, dl, dr),
    vrlf(vr: boolean) {
      feedMinimum = dot * (!vr && spacing ? 2.5 : 2);
      return lf();
    },
    cut() {
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
      return lf();
    },
    ul: () => decorate({ underline: true }),
    em: () => decorate({ bold: true }),
    iv: () => decorate({ invert: true }),
    wh(wh: number) {
      const { wide, high } = textScale(wh);
      style = { ...style, wide, high };
      lineHeight = Math.max(lineHeight, high);
      return '';
    },
    normal() {
      style = normal;
      return '';
    },
    text(text: string, encoding: string) {
      // Each character centred in its cells, at receiptline's SVG's x (in its scaled units).
      const chars = base.arrayFrom(text, encoding as never);
      const xs: number[] = [];
      let p = textPosition;
      for (const char of chars) {
        const q = base.measureText(char, encoding as never) * style.wide;
        xs.push(Math.floor(((p + q / 2) * dot) / style.wide) * style.wide);
        p += q;
      }
      line.push({ style, chars, xs });
      textPosition += base.measureText(text, encoding as never) * style.wide;
      return '';
    },
    lf,
    command: () => '',
    image(image: string) {
      const { width, height } = pngSize(image);
      receipt.drawings.push({
        kind: 'image',
        base64: image,
        width,
        height,
        x: blockStart(width),
        y: receipt.height,
      });
      receipt.height += height;
      return '';
    },
    qrcode(symbol: { data: string; cell: number; level: 'l' | 'm' | 'q' | 'h' }) {
      if (symbol.data.length === 0) return '';
      const matrix = receiptline.qrcode.generate({ ...symbol, type: 'qrcode' });
      const cell = symbol.cell;
      const x0 = blockStart(matrix.length * cell);
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
    },
    barcode(symbol: Parameters<typeof receiptline.barcode.generate>[0], encoding: string) {
      const bar = receiptline.barcode.generate(symbol);
      if (!('length' in bar)) return '';
      const height = bar.height + (bar.hri ? dot * 2 + 2 : 0);
      const x0 = blockStart(bar.length);
      let x = x0;
      bar.widths.forEach((width, i) => {
        if (i % 2 === 1) {
          const y0 = receipt.height;
          receipt.drawings.push({ kind: 'rect', x0: x, y0, x1: x + width, y1: y0 + bar.height });
        }
        x += width;
      });
      if (bar.hri) {
        const chars = base.arrayFrom(bar.text, encoding as never);
        const m = Math.floor(
          (bar.length - (base.measureText(bar.text, encoding as never) - 1) * dot) / 2,
        );
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
    },
  };
}
