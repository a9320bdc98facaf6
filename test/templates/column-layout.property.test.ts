import fc from 'fast-check';
import receiptline from 'receiptline';
import { describe, expect, it } from 'vitest';
import { layOutColumns } from '../../server/templates/render/column-layout.ts';
import { escapeReceiptLine } from '../../server/templates/render/escape.ts';
import { textWidth } from '../../server/templates/render/receiptline-markup.ts';

/**
 * Properties of the layout by words (server/templates/render/column-layout.ts) over any item
 * name and price, on every roll width: an item's line as the docs' shop receipt writes it
 * (`{{ item.qty }} x {{ item.name }} | {{ amount | money }}`), its data escaped as Liquid
 * escapes it, laid out, then printed by ReceiptLine as plain text.
 */

const rolls = fc.constantFrom(32, 48, 69, 64);
/** A word: letters, ReceiptLine's special characters (escaped as data), East Asian wide ones. */
const word = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9éüß(){}|^_"`~\\,.&'-]{1,12}$/),
  fc.constantFrom('抹茶', 'ラテ', 'クロワッサン', '大'),
);
const name = fc.array(word, { minLength: 1, maxLength: 12 });
const amount = fc.integer({ min: 0, max: 9_999_999 }).map((cents) => (cents / 100).toFixed(2));

const printed = (line: string, cpl: number) =>
  receiptline
    .transform(layOutColumns(line, cpl), { command: 'text', cpl })
    .split('\n')
    .slice(0, -1)
    .map((row) => row.trimEnd());

describe('an item line, whatever its name and price', () => {
  it('never splits a word that fits its column, keeps the amount whole at the right of the first row', () => {
    fc.assert(
      fc.property(
        rolls,
        fc.integer({ min: 1, max: 99 }),
        name,
        amount,
        (cpl, qty, words, price) => {
          const line = `${qty} x ${escapeReceiptLine(words.join(' '))} | ${price}`;
          const rows = printed(line, cpl);
          // The name's column is what the amount and the space before it leave.
          const column = cpl - 1 - price.length;
          fc.pre(words.every((w) => textWidth(w) <= column - 6));
          expect(rows[0]!.endsWith(` ${price}`)).toBe(true);
          const names = [rows[0]!.slice(0, -price.length), ...rows.slice(1)];
          expect(names.join(' ').trim().split(/ +/)).toEqual([String(qty), 'x', ...words]);
          for (const row of names.slice(1))
            expect(row.trimEnd().length).toBeLessThanOrEqual(column);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('prints a word wider than its column whole, across rows, and nothing else', () => {
    fc.assert(
      fc.property(
        rolls,
        fc.string({ minLength: 40, maxLength: 120, unit: fc.constantFrom('a', 'b', 'é') }),
        amount,
        (cpl, long, price) => {
          const rows = printed(`${escapeReceiptLine(long)} | ${price}`, cpl);
          expect(rows[0]!.endsWith(` ${price}`)).toBe(true);
          const names = [rows[0]!.slice(0, -price.length), ...rows.slice(1)];
          expect(names.join('').replace(/ /g, '')).toBe(long);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a total line', () => {
  it('stays on one row, double width when it fits, else at normal width', () => {
    fc.assert(
      fc.property(
        rolls,
        amount,
        fc.constantFrom('Total', 'Total due', 'Zu zahlen'),
        (cpl, price, label) => {
          const rows = printed(`^${label} | ^${price} EUR`, cpl);
          expect(rows).toHaveLength(1);
          const row = rows[0]!;
          const wide = 2 * (label.length + price.length + 4) + 1 <= cpl;
          if (wide) expect(row.replace(/ /g, '')).toBe(`${label}${price}EUR`.replace(/ /g, ''));
          else expect(row).toMatch(new RegExp(`^${label} +${price.replace('.', '\\.')} EUR$`));
        },
      ),
      { numRuns: 300 },
    );
  });
});
