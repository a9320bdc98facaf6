import receiptline from 'receiptline';

/**
 * What the two command sets of our own (`pdf-command.ts`, `raster-receipt.ts`) take from
 * ReceiptLine's SVG command set, so that both lay a receipt out as it does: the scale of
 * `^` text, the paths of rules, the runs of a QR code's dark modules.
 */

/** The horizontal and vertical scale of a `wh` (`^`, `^^`, `^^^`…), as the SVG scales text. */
export function textScale(wh: number): { wide: number; high: number } {
  return { wide: wh < 2 ? wh + 1 : wh - 1, high: wh < 3 ? wh : wh - 1 };
}

/** A rule's command: a horizontal rule, or the borders of a table. */
export type RuleMethod = 'hr' | 'vr' | 'vrstart' | 'vrstop' | 'vrhr';

/** An SVG path's data, to be drawn translated by (x, y) dots. */
export interface RulePath {
  x: number;
  y: number;
  d: string;
}

const svgCommand = receiptline.commands.svg;
const ruleGroup = /<g transform="translate\(([-\d.]+),([-\d.]+)\)"><path d="([^"]*)"/g;

/**
 * The paths of a rule drawn at `top` dots from the receipt's top in a print area
 * `lineMargin` columns from the left: ReceiptLine's SVG command set draws it on a scratch
 * copy, and its `<path>`s are read back, so the geometry is its own.
 */
export function rulePaths(
  method: RuleMethod,
  args: (number | number[])[],
  lineMargin: number,
  top: number,
): RulePath[] {
  const scratch = { ...svgCommand, lineMargin, svgHeight: top, svgContent: '' };
  (scratch[method] as (...a: (number | number[])[]) => string)(...args);
  return [...scratch.svgContent.matchAll(ruleGroup)].map(([, x, y, d]) => ({
    x: Number(x),
    y: Number(y),
    d: d!,
  }));
}

/** Each run of dark modules of a QR code's rows: its row, first module and end (exclusive). */
export function* darkRuns(
  matrix: readonly ArrayLike<number>[],
): Generator<{ row: number; start: number; end: number }> {
  for (let row = 0; row < matrix.length; row++) {
    const modules = matrix[row]!;
    for (let x = 0; x < modules.length; x++) {
      if (modules[x] !== 1) continue;
      const start = x;
      while (modules[x + 1] === 1) x++;
      yield { row, start, end: x + 1 };
    }
  }
}
