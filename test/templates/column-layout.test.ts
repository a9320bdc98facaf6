import receiptline from 'receiptline';
import { describe, expect, it } from 'vitest';
import { layOutColumns } from '../../server/templates/render/column-layout.ts';
import { receiptToPrinter } from '../../server/templates/render/receipt.ts';
import { receiptLineWidths } from '../../server/templates/render/receiptline-markup.ts';

/**
 * The layout by words done before ReceiptLine (server/templates/render/column-layout.ts).
 * The first block pins the behaviour of ReceiptLine the layout relies on, so that an update
 * of the package that changes it fails here rather than on a receipt.
 */

/** ReceiptLine's plain text, one string a printed line, trailing spaces dropped. */
const text = (document: string, cpl: number) =>
  receiptline
    .transform(document, { command: 'text', cpl })
    .split('\n')
    .slice(0, -1)
    .map((line) => line.trimEnd());

/** The text of a document laid out first, as the renderers do. */
const laidOut = (document: string, cpl: number) => text(layOutColumns(document, cpl), cpl);

/** The widths ReceiptLine gives the columns of the document's last line (border 1). */
function widthsDrawn(document: string, cpl: number): number[] {
  const starts: number[] = [];
  let area = 0;
  const command = {
    ...receiptline.commands.base,
    area: (_left: number, width: number) => {
      area = width;
      return '';
    },
    absolute: (position: number) => {
      starts.push(position);
      return '';
    },
    lf: () => {
      if (starts.length > 0) starts.push(-1);
      return '';
    },
  };
  receiptline.transform(document, { command, cpl });
  const rows = starts.join(',').split(',-1').filter(Boolean);
  const last = rows.at(-1)!.replace(/^,/, '').split(',').map(Number);
  return last.map((start, i) => (i + 1 < last.length ? last[i + 1]! - 1 : area) - start);
}

describe('what the layout relies on in ReceiptLine', () => {
  it.each([
    ['auto', [], 3, 48],
    ['auto, 2 columns', [], 2, 32],
    ['set widths', [20, -1, 8], 3, 48],
    ['set and star', [-1, 12, 5], 3, 69],
    ['fewer columns than widths', [10, 10], 1, 32],
  ])('gives columns the widths the layout computes (%s)', (_name, width, count, cpl) => {
    const property =
      width.length === 0 ? '' : `{width:${width.map((w) => (w < 0 ? '*' : w)).join(',')}}\n`;
    const line = Array.from({ length: count }, (_, i) => `c${i}`).join(' | ');
    const expected = receiptLineWidths(count, { wrap: true, border: 1, width }, cpl);
    expect(widthsDrawn(`${property}${line}`, cpl)).toEqual(
      expected.slice(0, Math.max(count, width.length)),
    );
  });

  it('starts a new row of a column at \\n, and keeps the spaces after it', () => {
    expect(text('|ab\\n  cd |', 10)).toEqual(['ab', '  cd']);
  });

  it('starts the next row itself after a row that fills its column (a \\n there is an empty row)', () => {
    expect(text('|abcde\\nfg |', 5)).toEqual(['abcde', '', 'fg']);
    expect(text('|abcdefg |', 5)).toEqual(['abcde', 'fg']);
  });

  it('prints nothing for a line that only sets widths, and applies them to the lines after it', () => {
    expect(text('{width:2,*}\nab |cd\n{width:auto}\nab |cd', 10)).toEqual(['ab cd', 'ab   cd']);
  });

  it('wraps by character, which is why the layout exists', () => {
    expect(text('Sourdough loaf | 3.95', 20)).toEqual(['Sourdough       3.95', ' loaf']);
    expect(text('Cinnamon bun | 1.60', 16)).toEqual(['Cinnamo     1.60', 'n bun']);
  });
});

describe('a line laid out by words', () => {
  it('leaves a line that fits as it was', () => {
    const document = '^^^Demo Shop\nOrder | A-1042\n-\n{code:x; option:qrcode,5}\n=';
    expect(layOutColumns(document, 32)).toBe(document);
  });

  it('keeps the amount whole and right-aligned, and wraps the name at words, indented', () => {
    expect(laidOut('1 x Flat white (oat milk, extra shot, to go) | 3.60', 32)).toEqual([
      '1 x Flat white (oat milk,   3.60',
      '    extra shot, to go)',
    ]);
    expect(laidOut('1 x Sourdough loaf | 3.95', 20)).toEqual(['1 x Sourdough   3.95', '    loaf']);
  });

  it('indents a continuation by two characters when the text starts with no quantity', () => {
    expect(laidOut('Oat milk one litre twelve pack | OM-12', 24)).toEqual([
      'Oat milk one litre OM-12',
      '  twelve pack',
    ]);
  });

  it('breaks a word only when it alone is wider than its column', () => {
    expect(laidOut('Pneumonoultramicroscopic | 1.00', 16)).toEqual([
      'Pneumonoult 1.00',
      '  ramicrosc',
      '  opic',
    ]);
  });

  it('keeps double-width text whole when it fits, else prints it at normal width', () => {
    expect(laidOut('^Total | ^23.45 EUR', 32)).toEqual(['T o t a l     2 3 . 4 5   E U R']);
    expect(laidOut('^Total | ^123456.78 EUR', 32)).toEqual(['Total              123456.78 EUR']);
  });

  it('wraps taller text (^^, no wider) at words and keeps it tall', () => {
    const laid = layOutColumns('^^Wide heading over two | ^^x', 20);
    expect(laid).toContain('^^Wide heading over\\n  two');
    expect(laidOut('^^Wide heading over two | ^^x', 20)).toEqual(['Wide heading over  x', '  two']);
  });

  it('lets the widest column take the rest when no left-aligned one can', () => {
    expect(laidOut('a | b | c that is a long third column of text', 20)).toEqual([
      'a b c that is a long',
      '     third column of',
      '                text',
    ]);
  });

  it("keeps a template's own widths and wraps within them", () => {
    expect(laidOut('{width:10,*}\nOat milk 1 l (12 pack) | OM-12', 24)).toEqual([
      'Oat milk 1         OM-12',
      '  l (12',
      '  pack)',
    ]);
  });

  it('leaves a line under {text:nowrap} as it was', () => {
    const document = '{text:nowrap}\nSourdough loaf with seeds | 3.95';
    expect(layOutColumns(document, 20)).toBe(document);
  });

  it('counts East Asian wide characters as two columns', () => {
    // 11 columns for the name: ReceiptLine draws each of these characters in one cell.
    expect(laidOut('抹茶 ラテ 大きい サイズ | 5.00', 16)).toEqual([
      '抹茶 ラテ       5.00',
      '  大きい',
      '  サイズ',
    ]);
  });

  it('reads escaped data as the characters it prints', () => {
    expect(laidOut('1 x Croissant \\x7bbutter\\x7d with jam | 1.90', 24)).toEqual([
      '1 x Croissant       1.90',
      '    {butter} with',
      '    jam',
    ]);
  });
});

describe('the layout on a printer', () => {
  it('runs on what prints: € spelled EUR by the code page is three characters', () => {
    const document = '^Total | ^23.45 €\nMocha | 3.20';
    for (const language of ['escpos', 'starprnt'] as const) {
      const bytes = receiptToPrinter(document, { language, width_mm: 58 }).toString('latin1');
      expect(bytes).toContain('23.45 EUR');
    }
  });
});
