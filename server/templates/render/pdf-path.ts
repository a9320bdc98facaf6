import { pdfNumber as n } from './pdf-file.ts';
import { pathSegments } from './receipt-layout.ts';

/**
 * An SVG path's data as PDF path operators, translated by (dx, dy): the subset ReceiptLine's
 * rules use (receipt-layout.ts `pathSegments`; a quadratic curve becomes the equivalent
 * cubic one).
 */
export function pathOperators(d: string, dx: number, dy: number): string {
  let out = '';
  let [x, y] = [0, 0];
  for (const segment of pathSegments(d, dx, dy)) {
    switch (segment.kind) {
      case 'move':
        out += `${n(segment.x)} ${n(segment.y)} m `;
        break;
      case 'line':
        out += `${n(segment.x)} ${n(segment.y)} l `;
        break;
      case 'quad': {
        const { cx, cy, x: tx, y: ty } = segment;
        const c1 = [x + ((cx - x) * 2) / 3, y + ((cy - y) * 2) / 3];
        const c2 = [tx + ((cx - tx) * 2) / 3, ty + ((cy - ty) * 2) / 3];
        out += `${n(c1[0]!)} ${n(c1[1]!)} ${n(c2[0]!)} ${n(c2[1]!)} ${n(tx)} ${n(ty)} c `;
        break;
      }
      case 'close':
        out += 'h ';
        break;
    }
    [x, y] = [segment.x, segment.y];
  }
  return out;
}
