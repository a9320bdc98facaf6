import receiptline from 'receiptline';

/**
 * What the two command sets of our own (`pdf-command.ts`, `raster-receipt.ts`) take from
 * ReceiptLine's SVG command set, so that both lay a receipt out as it does: the scale of
 * `^` text, the paths of rules and how to read them, the runs of a QR code's dark modules.
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

/** A piece of a path, in absolute dots: a move, a straight line, a quadratic curve, a close. */
export type PathSegment =
  | { kind: 'move' | 'line'; x: number; y: number }
  | { kind: 'quad'; cx: number; cy: number; x: number; y: number }
  | { kind: 'close'; x: number; y: number };

/**
 * An SVG path's data as segments translated by (dx, dy): the subset ReceiptLine's rules use
 * (M m h v l q z, absolute and relative; pairs after a move are lines, as in SVG). `close`
 * carries the subpath's start, where the pen goes back to.
 */
export function* pathSegments(d: string, dx: number, dy: number): Generator<PathSegment> {
  let [x, y, startX, startY] = [0, 0, 0, 0];
  for (const [, command, args] of d.matchAll(/([MmHhVvLlQqZz])([^MmHhVvLlQqZz]*)/g)) {
    const n = (args!.match(/-?(?:\d+\.?\d*|\.\d+)/g) ?? []).map(Number);
    const relative = command === command!.toLowerCase();
    const ax = (value: number) => (relative ? x : 0) + value;
    const ay = (value: number) => (relative ? y : 0) + value;
    switch (command!.toLowerCase()) {
      case 'm':
      case 'l':
        for (let i = 0; i + 1 < n.length; i += 2) {
          [x, y] = [ax(n[i]!), ay(n[i + 1]!)];
          const move = command!.toLowerCase() === 'm' && i === 0;
          if (move) [startX, startY] = [x, y];
          yield { kind: move ? 'move' : 'line', x: x + dx, y: y + dy };
        }
        break;
      case 'h':
        for (const value of n) {
          x = ax(value);
          yield { kind: 'line', x: x + dx, y: y + dy };
        }
        break;
      case 'v':
        for (const value of n) {
          y = ay(value);
          yield { kind: 'line', x: x + dx, y: y + dy };
        }
        break;
      case 'q':
        for (let i = 0; i + 3 < n.length; i += 4) {
          const [cx, cy] = [ax(n[i]!), ay(n[i + 1]!)];
          [x, y] = [ax(n[i + 2]!), ay(n[i + 3]!)];
          yield { kind: 'quad', cx: cx + dx, cy: cy + dy, x: x + dx, y: y + dy };
        }
        break;
      case 'z':
        [x, y] = [startX, startY];
        yield { kind: 'close', x: x + dx, y: y + dy };
        break;
    }
  }
}
