/** A plain-text table with right-aligned numbers, readable in a terminal and in Markdown. */
export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join(' | ')} |`;
  const rule = `|${widths
    .map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`))
    .join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}x` : '—');
