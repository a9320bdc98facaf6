import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { greyOf } from './png-pixels.ts';

/**
 * The worked examples of docs/templates.md (docs/templates/*.liquid with their sample data)
 * on each paper the docs promise the same receipt on: golden text and PNG previews in
 * test/templates/golden/. After a deliberate change of the layout, write them again with
 * `UPDATE_GOLDEN=1 npx vitest run test/templates/examples-golden.test.ts` and look at the diff.
 *
 * The PNG is compared by pixels, with a small tolerance (a glyph's antialiasing may differ
 * by a grey level between resvg builds): the same size, and at most 0.2 % of the pixels off
 * by more than a quarter of the grey scale.
 */

const docs = new URL('../../docs/templates/', import.meta.url);
const golden = new URL('./golden/', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';

const examples = ['shop-receipt', 'delivery-note', 'shelf-label'];
const papers: Array<[string, PrinterProfile]> = [
  ['58mm', { language: 'escpos', width_mm: 58 }],
  ['80mm', { language: 'escpos', width_mm: 80 }],
  ['112mm', { language: 'escpos', width_mm: 112 }],
  ['a4', { language: 'pdf', width_mm: 'a4' }],
];

async function render(example: string, profile: PrinterProfile, format: 'text' | 'png') {
  const source = readFileSync(new URL(`${example}.liquid`, docs), 'utf8');
  const data = JSON.parse(readFileSync(new URL(`${example}.json`, docs), 'utf8')) as object;
  return (await renderDocument({ kind: 'receipt', source }, data, profile, format)).bytes;
}

/** The golden file's bytes; written first when updating. */
function goldenOf(name: string, actual: Buffer): Buffer {
  const file = new URL(name, golden);
  if (update) writeFileSync(file, actual);
  expect(existsSync(file), `${name} is missing: UPDATE_GOLDEN=1 writes it`).toBe(true);
  return readFileSync(file);
}

describe.each(examples)('the docs example %s', (example) => {
  it.each(papers)('prints its golden text at %s', async (paper, profile) => {
    const text = await render(example, profile, 'text');
    expect(text.toString('utf8')).toBe(goldenOf(`${example}-${paper}.txt`, text).toString('utf8'));
  });

  it.each(papers)(
    'draws its golden PNG at %s, pixel for pixel within a tolerance',
    async (paper, profile) => {
      const png = await render(example, profile, 'png');
      const [actual, expected] = [greyOf(png), greyOf(goldenOf(`${example}-${paper}.png`, png))];
      expect([actual.width, actual.height]).toEqual([expected.width, expected.height]);
      let off = 0;
      for (let i = 0; i < actual.pixels.length; i++) {
        if (Math.abs(actual.pixels[i]! - expected.pixels[i]!) > 64) off++;
      }
      expect(off).toBeLessThanOrEqual(actual.pixels.length * 0.002);
    },
  );
});

describe('the shop receipt on a 58 mm roll', () => {
  it('wraps its items at words, keeps each amount whole and its total on one line', async () => {
    const text = (await render('shop-receipt', papers[0]![1], 'text')).toString('utf8');
    const lines = text.split('\n').map((line) => line.trimEnd());
    expect(lines).toContain('1 x Sourdough loaf          3.95');
    expect(lines).toContain('1 x Cinnamon bun            1.60');
    expect(lines).toContain('1 x Flat white (oat milk,   3.60');
    expect(lines).toContain('    extra shot, to go)');
    expect(lines.filter((line) => line.startsWith('T o t a l'))).toEqual([
      'T o t a l     2 3 . 4 5   E U R',
    ]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(32);
  });
});
