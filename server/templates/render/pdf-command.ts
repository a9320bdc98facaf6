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

/** The command set's state: what it has drawn so far, and the line it is on. */
interface PdfState {
  width: number;
  height: number;
  content: string;
  blocks: Block[];
  unsupported: string | null;
  lineMargin: number;
  lineAlign: number;
  lineWidth: number;
  lineHeight: number;
  runs: Run[];
  position: number;
  scale: { width: number; height: number };
  decoration: { bold: boolean; underline: boolean; inverted: boolean };
  feedMinimum: number;
  spacing: boolean;
}

type Command = receiptline.BaseCommand;
const base = receiptline.commands.base;

/**
 * A fresh command set and what it draws (read `drawing()` after `receiptline.transform`).
 * ReceiptLine copies the command object's own properties, so its state lives in `state`,
 * which the methods close over, not on `this`. The methods are grouped by what they draw.
 */
export function pdfCommand(): {
  command: Command;
  drawing: () => PdfDrawing;
} {
  const state: PdfState = {
    width: 576,
    height: 0,
    content: '',
    blocks: [],
    unsupported: null,
    lineMargin: 0,
    lineAlign: 0,
    lineWidth: 48,
    lineHeight: 1,
    runs: [],
    position: 0,
    scale: { width: 1, height: 1 },
    decoration: { bold: false, underline: false, inverted: false },
    feedMinimum: charWidth * 2,
    spacing: false,
  };
  const command: Command = {
    ...base,
    ...layoutMethods(state),
    ...ruleMethods(state),
    ...textMethods(state),
    ...codeMethods(state),
  };
  return {
    command,
    drawing: () => {
      const { content, width, height, blocks, unsupported } = state;
      return { content, width, height, blocks, unsupported };
    },
  };
}

/** The page and the line's geometry: print area, alignment, position. */
function layoutMethods(
  state: PdfState,
): Pick<Command, 'open' | 'close' | 'area' | 'align' | 'absolute' | 'relative'> {
  return {
    open: (printer) => {
      state.lineWidth = printer.cpl as number;
      state.width = state.lineWidth * charWidth;
      state.spacing = printer.spacing === true;
      state.feedMinimum = charWidth * (state.spacing ? 2.5 : 2);
      return '';
    },
    close: () => '',
    area: (left, areaWidth) => {
      state.lineMargin = left;
      state.lineWidth = areaWidth;
      return '';
    },
    align: (align) => {
      state.lineAlign = align;
      return '';
    },
    absolute: (at) => {
      state.position = at;
      return '';
    },
    relative: (by) => {
      state.position += by;
      return '';
    },
  };
}

/** Rules and the paper cut. */
function ruleMethods(
  state: PdfState,
): Pick<Command, 'hr' | 'vr' | 'vrstart' | 'vrstop' | 'vrhr' | 'vrlf' | 'cut'> {
  return {
    // Rules: the svg command set's own paths (receipt-layout.ts), as PDF paths.
    hr: (columns) => drawRule(state, 'hr', columns),
    vr: (widths, textHeight) => drawRule(state, 'vr', widths, textHeight),
    vrstart: (widths) => drawRule(state, 'vrstart', widths),
    vrstop: (widths) => drawRule(state, 'vrstop', widths),
    vrhr: (widths1, widths2, dl, dr) => drawRule(state, 'vrhr', widths1, widths2, dl, dr),
    vrlf: (vr) => {
      state.feedMinimum = charWidth * (!vr && state.spacing ? 2.5 : 2);
      return lineFeed(state);
    },
    // The paper cut: a dashed line across (the svg command set adds a pair of scissors).
    cut: () => {
      const y = state.height + charWidth;
      state.content += `[2] 0 d 24 ${y} m ${state.width} ${y} l S [] 0 d\n`;
      return lineFeed(state);
    },
  };
}

function drawRule(state: PdfState, method: RuleMethod, ...args: (number | number[])[]): string {
  for (const { x, y, d } of rulePaths(method, args, state.lineMargin, state.height)) {
    state.content += `${pathOperators(d, x, y)}S\n`;
  }
  return '';
}

/** Text and its decorations, and the line feed that draws the line. */
function textMethods(
  state: PdfState,
): Pick<Command, 'ul' | 'em' | 'iv' | 'wh' | 'normal' | 'text' | 'lf' | 'command' | 'image'> {
  return {
    ul: () => {
      state.decoration.underline = true;
      return '';
    },
    em: () => {
      state.decoration.bold = true;
      return '';
    },
    iv: () => {
      state.decoration.inverted = true;
      return '';
    },
    wh: (wh) => {
      const { wide, high } = textScale(wh);
      state.scale = { width: wide, height: high };
      state.lineHeight = Math.max(state.lineHeight, high);
      return '';
    },
    normal: () => {
      state.decoration = { bold: false, underline: false, inverted: false };
      state.scale = { width: 1, height: 1 };
      return '';
    },
    text: (text, encoding) => addRun(state, text, encoding),
    lf: () => lineFeed(state),
    command: () => '',
    image: () => {
      state.unsupported ??= 'an image';
      return '';
    },
  };
}

/** A piece of text on the current line, drawn at the next line feed. */
function addRun(state: PdfState, text: string, encoding: receiptline.Encoding): string {
  const bytes = winAnsi(text);
  if (bytes === null) state.unsupported ??= 'text outside WinAnsi';
  // One column a character in every single-byte code page (measureText).
  const columns = base.measureText(text, encoding);
  state.runs.push({
    left: state.position * charWidth,
    bytes: bytes ?? '',
    columns: columns * state.scale.width,
    ...state.decoration,
    ...state.scale,
  });
  state.position += columns * state.scale.width;
  return '';
}

function lineFeed(state: PdfState): string {
  const h = state.lineHeight * charWidth * 2;
  if (state.runs.length > 0) drawLine(state, state.height + h);
  state.height += Math.max(h, state.feedMinimum);
  state.blocks.push({ bottom: state.height, end: state.content.length });
  state.lineHeight = 1;
  state.runs = [];
  state.position = 0;
  return '';
}

/**
 * A run of text at its left edge on a baseline (both in dots), scaled by the text matrix.
 * (A `^` run, twice as wide as high, has spaces wider than its font is high: pdftotext's
 * raw mode reads its words as apart, its layout mode keeps them on their line.)
 */
function textOperators(run: Run, left: number, baseline: number): string {
  return `/${run.bold ? 'F2' : 'F1'} ${fontSize} Tf ${run.width} 0 0 ${-run.height} ${n(left)} ${n(baseline)} Tm ${pdfLiteral(run.bytes)} Tj\n`;
}

/** The line's text, now that its height is known: boxes and underlines first, then the text. */
function drawLine(state: PdfState, bottom: number): void {
  let paths = '';
  let text = '';
  let white = false;
  for (const run of state.runs) {
    const left = state.lineMargin * charWidth + run.left;
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
  state.content += `${paths === '' ? '' : `${paths}0 g\n`}BT\n${text}ET\n${white ? '0 g\n' : ''}`;
}

/** QR codes and barcodes. */
function codeMethods(state: PdfState): Pick<Command, 'qrcode' | 'barcode'> {
  return {
    qrcode: (symbol) => drawQrCode(state, symbol),
    barcode: (symbol, encoding) => drawBarcode(state, symbol, encoding),
  };
}

/** Where a block `blockWidth` dots wide starts on the line, by the line's alignment. */
function blockStart(state: PdfState, blockWidth: number): number {
  return Math.floor(
    state.lineMargin * charWidth +
      ((state.lineWidth * charWidth - blockWidth) * state.lineAlign) / 2,
  );
}

function drawQrCode(state: PdfState, symbol: receiptline.QRCode): string {
  if (symbol.data.length === 0) return '';
  const matrix = receiptline.qrcode.generate(symbol);
  const size = matrix.length;
  const cell = symbol.cell;
  const left = blockStart(state, size * cell);
  // One rectangle a run of dark modules in a row, one fill for all.
  let rectangles = '';
  for (const { row, start, end } of darkRuns(matrix)) {
    rectangles += `${left + start * cell} ${state.height + row * cell} ${(end - start) * cell} ${cell} re\n`;
  }
  state.content += `${rectangles}f\n`;
  state.height += size * cell;
  state.blocks.push({ bottom: state.height, end: state.content.length });
  return '';
}

function drawBarcode(
  state: PdfState,
  symbol: receiptline.Barcode,
  encoding: receiptline.Encoding,
): string {
  const bar = receiptline.barcode.generate(symbol);
  if (!('length' in bar)) return '';
  const barHeight = bar.height;
  const total = barHeight + (bar.hri ? charWidth * 2 + 2 : 0);
  const left = blockStart(state, bar.length);
  let rectangles = '';
  let x = left;
  bar.widths.forEach((w, index) => {
    if (index % 2 === 1) rectangles += `${x} ${state.height} ${w} ${barHeight} re\n`;
    x += w;
  });
  state.content += `${rectangles}f\n`;
  if (bar.hri) {
    const bytes = winAnsi(bar.text);
    if (bytes === null) state.unsupported ??= 'text outside WinAnsi';
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
    const baseline = state.height + total - descent;
    state.content += `BT\n${textOperators(run, left + m - charWidth / 2, baseline)}ET\n`;
  }
  state.height += total;
  state.blocks.push({ bottom: state.height, end: state.content.length });
  return '';
}
