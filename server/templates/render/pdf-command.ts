import iconv from 'iconv-lite';
import receiptline from 'receiptline';
import { pdfNumber as n, pdfLiteral } from './pdf-file.ts';
import { pathOperators } from './pdf-path.ts';
import { darkRuns, type RuleMethod, rulePaths, textScale } from './receipt-layout.ts';

/**
 * A ReceiptLine command set that draws PDF operators instead of printer commands: ReceiptLine
 * lays the document out and calls these methods line by line, as it calls its own `svg`
 * command set, which this follows step for step (the same grid of 12 × 24 dots, the same
 * positions, the same rules and codes), in the same coordinates: receipt dots, y downwards
 * from the top. `pdf-receipt.ts` places the drawing on pages.
 *
 * Text is in the PDF standard fonts Courier and Courier-Bold at 20 dots, whose 0.6 em advance
 * is ReceiptLine's 12-dot column, in WinAnsiEncoding (cp1252), as text that stays text.
 */

/** What the command set drew. */
export interface PdfDrawing {
  /** The content stream's operators (one byte a character, WinAnsi). */
  content: string;
  /** Width and height in dots. */
  width: number;
  height: number;
  /**
   * The printed blocks (a line, a rule, a code) in order: where each ends, in dots from the
   * top, and in `content`. A page may break between two blocks.
   */
  blocks: Block[];
  /**
   * Why the standard fonts cannot draw it (a character outside WinAnsi, an image), or null.
   * The drawing is then incomplete and is not to be used.
   */
  unsupported: string | null;
}

const charWidth = 12;
const fontSize = 20;
/** Courier's descender (157/1000 em): the baseline sits this far above the line's bottom. */
const descent = (157 * fontSize) / 1000;

/** WinAnsi's bytes 0x80–0x9F by character (€, quotes, dashes, Š…), from iconv-lite's cp1252. */
const winAnsiHigh = new Map<string, number>();
for (let byte = 0x80; byte < 0xa0; byte++) {
  const char = iconv.decode(Buffer.from([byte]), 'cp1252');
  if (char !== '\ufffd') winAnsiHigh.set(char, byte);
}

/** The text as WinAnsi bytes (one character a byte), or null when a character is not in it. */
function winAnsi(text: string): string | null {
  if (/^[\x20-\x7e]*$/.test(text)) return text;
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && (code < 0x80 || code >= 0xa0) && code <= 0xff) out += char;
    else {
      const byte = winAnsiHigh.get(char);
      if (byte === undefined) return null;
      out += String.fromCharCode(byte);
    }
  }
  return out;
}

/** A printed block: its bottom in dots from the top, and where its operators end in `content`. */
export interface Block {
  bottom: number;
  end: number;
}

/** A piece of text on the current line, waiting for the line feed that fixes its baseline. */
interface Run {
  /** Left edge in dots from the print area's left. */
  left: number;
  bytes: string;
  /** Columns it covers, its scale included. */
  columns: number;
  bold: boolean;
  underline: boolean;
  inverted: boolean;
  /** Horizontal and vertical scale (`^`, `^^`, …). */
  width: number;
  height: number;
}

/**
 * A fresh command set and what it draws (read `drawing()` after `receiptline.transform`).
 * ReceiptLine copies the command object's own properties, so its state lives here, in the
 * closure, not on `this`.
 */
export function pdfCommand(): {
  command: receiptline.BaseCommand;
  drawing: () => PdfDrawing;
} {
  const base = receiptline.commands.base;
  let width = 576;
  let height = 0;
  let content = '';
  const blocks: Block[] = [];
  let unsupported: string | null = null;
  let lineMargin = 0;
  let lineAlign = 0;
  let lineWidth = 48;
  let lineHeight = 1;
  let runs: Run[] = [];
  let position = 0;
  let scale = { width: 1, height: 1 };
  let decoration = { bold: false, underline: false, inverted: false };
  let feedMinimum = charWidth * 2;
  let spacing = false;

  /** Where a block `blockWidth` dots wide starts on the line, by the line's alignment. */
  const blockStart = (blockWidth: number) =>
    Math.floor(lineMargin * charWidth + ((lineWidth * charWidth - blockWidth) * lineAlign) / 2);
  const rule = (method: RuleMethod, ...args: (number | number[])[]) => {
    for (const { x, y, d } of rulePaths(method, args, lineMargin, height)) {
      content += `${pathOperators(d, x, y)}S\n`;
    }
    return '';
  };

  /**
   * A run of text at its left edge on a baseline (both in dots), scaled by the text matrix.
   * (A `^` run, twice as wide as high, has spaces wider than its font is high: pdftotext's
   * raw mode reads its words as apart, its layout mode keeps them on their line.)
   */
  const textOperators = (run: Run, left: number, baseline: number) =>
    `/${run.bold ? 'F2' : 'F1'} ${fontSize} Tf ${run.width} 0 0 ${-run.height} ${n(left)} ${n(baseline)} Tm ${pdfLiteral(run.bytes)} Tj\n`;

  /** The line's text, now that its height is known: boxes and underlines first, then the text. */
  const drawLine = (bottom: number) => {
    let paths = '';
    let text = '';
    let white = false;
    for (const run of runs) {
      const left = lineMargin * charWidth + run.left;
      const runWidth = run.columns * charWidth;
      const baseline = bottom - descent * run.height;
      if (run.inverted) {
        paths += `0 g ${n(left)} ${n(bottom - 2 * charWidth * run.height)} ${runWidth} ${2 * charWidth * run.height} re f\n`;
      }
      if (run.underline) {
        const thickness = 1.5 * run.height;
        paths += `${run.inverted ? 1 : 0} g ${n(left)} ${n(baseline + thickness)} ${runWidth} ${n(thickness)} re f\n`;
      }
      if (run.inverted !== white) {
        text += run.inverted ? '1 g\n' : '0 g\n';
        white = run.inverted;
      }
      text += textOperators(run, left, baseline);
    }
    // The boxes and underlines leave the colour black or white: the text starts from black.
    content += `${paths === '' ? '' : `${paths}0 g\n`}BT\n${text}ET\n${white ? '0 g\n' : ''}`;
  };

  const command: receiptline.BaseCommand = {
    ...base,
    open: (printer) => {
      lineWidth = printer.cpl as number;
      width = lineWidth * charWidth;
      spacing = printer.spacing === true;
      feedMinimum = charWidth * (spacing ? 2.5 : 2);
      return '';
    },
    close: () => '',
    area: (left, areaWidth) => {
      lineMargin = left;
      lineWidth = areaWidth;
      return '';
    },
    align: (align) => {
      lineAlign = align;
      return '';
    },
    absolute: (at) => {
      position = at;
      return '';
    },
    relative: (by) => {
      position += by;
      return '';
    },
    // Rules: the svg command set's own paths (receipt-layout.ts), as PDF paths.
    hr: (columns) => rule('hr', columns),
    vr: (widths, textHeight) => rule('vr', widths, textHeight),
    vrstart: (widths) => rule('vrstart', widths),
    vrstop: (widths) => rule('vrstop', widths),
    vrhr: (widths1, widths2, dl, dr) => rule('vrhr', widths1, widths2, dl, dr),
    vrlf: (vr) => {
      feedMinimum = charWidth * (!vr && spacing ? 2.5 : 2);
      return command.lf();
    },
    // The paper cut: a dashed line across (the svg command set adds a pair of scissors).
    cut: () => {
      const y = height + charWidth;
      content += `[2] 0 d 24 ${y} m ${width} ${y} l S [] 0 d\n`;
      return command.lf();
    },
    ul: () => {
      decoration.underline = true;
      return '';
    },
    em: () => {
      decoration.bold = true;
      return '';
    },
    iv: () => {
      decoration.inverted = true;
      return '';
    },
    wh: (wh) => {
      const { wide, high } = textScale(wh);
      scale = { width: wide, height: high };
      lineHeight = Math.max(lineHeight, high);
      return '';
    },
    normal: () => {
      decoration = { bold: false, underline: false, inverted: false };
      scale = { width: 1, height: 1 };
      return '';
    },
    text: (text, encoding) => {
      const bytes = winAnsi(text);
      if (bytes === null) unsupported ??= 'text outside WinAnsi';
      // One column a character in every single-byte code page (measureText).
      const columns = base.measureText(text, encoding);
      runs.push({
        left: position * charWidth,
        bytes: bytes ?? '',
        columns: columns * scale.width,
        ...decoration,
        ...scale,
      });
      position += columns * scale.width;
      return '';
    },
    lf: () => {
      const h = lineHeight * charWidth * 2;
      if (runs.length > 0) drawLine(height + h);
      height += Math.max(h, feedMinimum);
      blocks.push({ bottom: height, end: content.length });
      lineHeight = 1;
      runs = [];
      position = 0;
      return '';
    },
    command: () => '',
    image: () => {
      unsupported ??= 'an image';
      return '';
    },
    qrcode: (symbol) => {
      if (symbol.data.length === 0) return '';
      const matrix = receiptline.qrcode.generate(symbol);
      const size = matrix.length;
      const cell = symbol.cell;
      const left = blockStart(size * cell);
      // One rectangle a run of dark modules in a row, one fill for all.
      let rectangles = '';
      for (const { row, start, end } of darkRuns(matrix)) {
        rectangles += `${left + start * cell} ${height + row * cell} ${(end - start) * cell} ${cell} re\n`;
      }
      content += `${rectangles}f\n`;
      height += size * cell;
      blocks.push({ bottom: height, end: content.length });
      return '';
    },
    barcode: (symbol, encoding) => {
      const bar = receiptline.barcode.generate(symbol);
      if (!('length' in bar)) return '';
      const barHeight = bar.height;
      const total = barHeight + (bar.hri ? charWidth * 2 + 2 : 0);
      const left = blockStart(bar.length);
      let rectangles = '';
      let x = left;
      bar.widths.forEach((w, index) => {
        if (index % 2 === 1) rectangles += `${x} ${height} ${w} ${barHeight} re\n`;
        x += w;
      });
      content += `${rectangles}f\n`;
      if (bar.hri) {
        const bytes = winAnsi(bar.text);
        if (bytes === null) unsupported ??= 'text outside WinAnsi';
        const columns = base.measureText(bar.text, encoding);
        // The svg command set centres character i at m + 12 i.
        const m = Math.floor((bar.length - (columns - 1) * charWidth) / 2);
        const run: Run = {
          left: 0,
          bytes: bytes ?? '',
          columns,
          bold: false,
          underline: false,
          inverted: false,
          width: 1,
          height: 1,
        };
        content += `BT\n${textOperators(run, left + m - charWidth / 2, height + total - descent)}ET\n`;
      }
      height += total;
      blocks.push({ bottom: height, end: content.length });
      return '';
    },
  };
  return {
    command,
    drawing: () => ({ content, width, height, blocks, unsupported }),
  };
}
