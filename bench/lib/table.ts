/**
 * A plain-text table, readable in a terminal and in Markdown: the first `textColumns`
 * columns left-aligned, the numbers after them right-aligned.
 */
export function formatTable(headers: string[], rows: string[][], textColumns = 1): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, column) =>
        column < textColumns ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join(' | ')} |`;
  const rule = `|${widths
    .map((width, column) =>
      column < textColumns ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`,
    )
    .join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}x` : '—');
