import { pdfNumber as n } from './pdf-file.ts';

/**
 * An SVG path's data as PDF path operators, translated by (dx, dy): the subset ReceiptLine's
 * rules use (M m h v l q z; a quadratic curve becomes the equivalent cubic one).
 */
export function pathOperators(d: string, dx: number, dy: number): string {
  const tokens = d.match(/[MmHhVvLlQqZz]|-?(?:\d+\.?\d*|\.\d+)/g) ?? [];
  let out = '';
  let x = 0;
  let y = 0;
  let i = 0;
  let command = '';
  const next = () => Number(tokens[i++]);
  while (i < tokens.length) {
    if (/[A-Za-z]/.test(tokens[i]!)) command = tokens[i++]!;
    switch (command) {
      case 'M':
      case 'm': {
        const [ax, ay] = [next(), next()];
        [x, y] = command === 'M' ? [ax, ay] : [x + ax, y + ay];
        out += `${n(x + dx)} ${n(y + dy)} m `;
        command = command === 'M' ? 'L' : 'l';
        break;
      }
      case 'L':
      case 'l': {
        const [ax, ay] = [next(), next()];
        [x, y] = command === 'L' ? [ax, ay] : [x + ax, y + ay];
        out += `${n(x + dx)} ${n(y + dy)} l `;
        break;
      }
      case 'h':
      case 'H':
        x = command === 'H' ? next() : x + next();
        out += `${n(x + dx)} ${n(y + dy)} l `;
        break;
      case 'v':
      case 'V':
        y = command === 'V' ? next() : y + next();
        out += `${n(x + dx)} ${n(y + dy)} l `;
        break;
      case 'q':
      case 'Q': {
        const [cx, cy, ex, ey] = [next(), next(), next(), next()];
        const [qx, qy] = command === 'Q' ? [cx, cy] : [x + cx, y + cy];
        const [tx, ty] = command === 'Q' ? [ex, ey] : [x + ex, y + ey];
        const c1 = [x + ((qx - x) * 2) / 3, y + ((qy - y) * 2) / 3];
        const c2 = [tx + ((qx - tx) * 2) / 3, ty + ((qy - ty) * 2) / 3];
        out += `${n(c1[0]! + dx)} ${n(c1[1]! + dy)} ${n(c2[0]! + dx)} ${n(c2[1]! + dy)} ${n(tx + dx)} ${n(ty + dy)} c `;
        [x, y] = [tx, ty];
        break;
      }
      case 'z':
      case 'Z':
        out += 'h ';
        break;
      default:
        i++; // a number after an unknown command: skip it
    }
  }
  return out;
}
