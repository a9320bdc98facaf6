import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { pdfInfo, pdfText } from '../helpers/system-programs.ts';

/**
 * The PDF written directly (server/templates/render/pdf-receipt.ts): read back by poppler
 * (pdftotext for the text, pdfinfo for the pages and errors) and by its own structure (the
 * cross-reference table, the content streams' operators). Text outside WinAnsi and images
 * take the SVG path (pdfkit, DejaVu Sans Mono embedded), which is checked to happen.
 */

const pdf = async (source: string, data: object, width: PrinterProfile['width_mm']) =>
  (
    await renderDocument(
      { kind: 'receipt', source },
      data,
      { language: 'pdf', width_mm: width },
      'raw',
    )
  ).bytes;

const note =
  '^^Delivery note {{ number }}\n-\n{% for line in lines %}{{ line.name }} | {{ line.qty }}\n{% endfor %}-\nEnd of note\n=';
const lines = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ name: `Article ${index + 1}`, qty: index * 3 }));

/** Each content stream's operators, inflated (every stream of the direct writer is). */
function streams(bytes: Buffer): string[] {
  const file = bytes.toString('latin1');
  return [...file.matchAll(/\/Length (\d+) >>\nstream\n/g)].map((match) => {
    const start = match.index + match[0].length;
    return inflateSync(bytes.subarray(start, start + Number(match[1]))).toString('latin1');
  });
}
const operators = (bytes: Buffer) => streams(bytes).join('');

const points = (size: string | undefined) =>
  size
    ?.match(/^([\d.]+) x ([\d.]+) pts/)
    ?.slice(1)
    .map(Number);

describe('a receipt as a PDF written directly', () => {
  it('on an 80 mm roll: one page 80 mm wide holding every line, in order', async () => {
    const bytes = await pdf(note, { number: 'D-1', lines: lines(30) }, 80);
    const { fields, stderr } = await pdfInfo(bytes);
    expect(stderr).toBe('');
    expect(fields.get('Pages')).toBe('1');
    const [width, height] = points(fields.get('Page size'))!;
    expect(width).toBeCloseTo((80 / 25.4) * 72, 2);
    // As long as the receipt: 20 lines more are 20 × 30 dots (ReceiptLine's line with
    // spacing) more, at 72 mm (80 less the margins) for 576 dots.
    const shorter = await pdf(note, { number: 'D-1', lines: lines(10) }, 80);
    const [, shorterHeight] = points((await pdfInfo(shorter)).fields.get('Page size'))!;
    expect(height! - shorterHeight!).toBeCloseTo((20 * 30 * ((72 / 25.4) * 72)) / 576, 1);
    expect(fields.get('Producer')).toBe('ShopDesk');
    const text = await pdfText(bytes);
    expect(text).toContain('Delivery note D-1');
    let at = 0;
    for (const [index, line] of lines(30).entries()) {
      const found = text.slice(at).match(new RegExp(`Article ${index + 1}\\s+${line.qty}\\n`));
      expect(found, `Article ${index + 1}`).not.toBeNull();
      at += found!.index! + found![0].length;
    }
    expect(text.slice(at)).toContain('End of note');
    // The standard font, not embedded: the fast path, not the SVG one.
    expect(bytes.toString('latin1')).toContain('/BaseFont /Courier ');
    expect(bytes.toString('latin1')).not.toContain('/FontFile');
  });

  it('on a 58 mm roll: one page 58 mm wide, narrower lines', async () => {
    const bytes = await pdf(note, { number: 'D-2', lines: lines(3) }, 58);
    const { fields, stderr } = await pdfInfo(bytes);
    expect(stderr).toBe('');
    expect(points(fields.get('Page size'))![0]).toBeCloseTo((58 / 25.4) * 72, 2);
    expect(await pdfText(bytes)).toMatch(/Article 3\s+6/);
  });

  it('on A4: over several A4 pages, every line once, each page ending after a whole line', async () => {
    const bytes = await pdf(note, { number: 'D-3', lines: lines(150) }, 'a4');
    const { fields, stderr } = await pdfInfo(bytes);
    expect(stderr).toBe('');
    expect(fields.get('Page size')).toBe('595.28 x 841.89 pts (A4)');
    const pages = Number(fields.get('Pages'));
    expect(pages).toBeGreaterThan(2);
    const text = await pdfText(bytes);
    expect(text.split('\f').filter((page) => page.trim() !== '').length).toBe(pages);
    for (const [index, line] of lines(150).entries()) {
      const pattern = new RegExp(`Article ${index + 1}\\s+${line.qty}\\n`, 'g');
      expect(text.match(pattern)?.length, `Article ${index + 1}`).toBe(1);
    }
  });

  it('bold, inverted, double-size and underlined text is text, drawn as such', async () => {
    const source = '"Bold words"\n`Inverted words`\n^^^Wide\n_Underlined words_\n_`Both`_ plain';
    const bytes = await pdf(source, {}, 80);
    const text = await pdfText(bytes);
    for (const words of ['Bold words', 'Inverted words', 'Wide', 'Underlined words']) {
      expect(text).toContain(words);
    }
    const drawn = operators(bytes);
    expect(drawn).toMatch(/\/F2 20 Tf 1 0 0 -1 [\d.]+ [\d.]+ Tm \(Bold words\) Tj/);
    // Inverted: a black box, then the words in white.
    expect(drawn).toMatch(
      /0 g [\d.]+ [\d.]+ \d+ 24 re f\n0 g\nBT\n1 g\n\/F1 20 Tf [^\n]*\(Inverted words\) Tj/,
    );
    expect(drawn).toMatch(/\/F1 20 Tf 2 0 0 -2 [\d.]+ [\d.]+ Tm \(Wide\) Tj/);
    expect(drawn).toMatch(/re f\n0 g\nBT\n\/F1 20 Tf [^\n]*\(Underlined words\) Tj/);
    // White on black (its underline white too), then black again on the same line.
    expect(drawn).toMatch(
      /1 g [^\n]* re f\n0 g\nBT\n1 g\n\/F1 20 Tf [^\n]*\(Both\) Tj\n0 g\n\/F1 20 Tf [^\n]*\( ?plain\) Tj\nET/,
    );
  });

  it('a QR code and a barcode are drawn as filled rectangles', async () => {
    const bytes = await pdf(
      'Scan me\n{code:https://shop.example/o/A-1042; option:qrcode,4}\n{code:4901234567894; option:ean,2,72,hri}',
      {},
      80,
    );
    const drawn = operators(bytes);
    const rectangles = drawn.match(/^\d+ \d+ \d+ \d+ re$/gm) ?? [];
    expect(rectangles.length).toBeGreaterThan(100);
    expect(drawn).toMatch(/ re\nf\n/);
    expect(await pdfText(bytes)).toContain('4901234567894'); // the barcode's human-readable line
  });

  it("a table with borders: the rules are stroked paths, rounded at the corners as ReceiptLine's", async () => {
    const bytes = await pdf(
      '{border:line; width:12,12}\nCoffee | 2.50\nTea | 1.80\n{border:space; width:*}',
      {},
      80,
    );
    const drawn = operators(bytes);
    expect(drawn).toMatch(/^[\d. ]+ m [\d. ]+ l [\d. ]+ c .* S$/m); // the top: a line, then a corner
    expect(drawn.match(/ S$/gm)?.length).toBeGreaterThanOrEqual(4); // top, two rows of bars, bottom
    const text = await pdfText(bytes);
    expect(text).toMatch(/Coffee\s+2\.50/);
    expect(text).toMatch(/Tea\s+1\.80/);
  });

  it('€ and other WinAnsi characters stay on the fast path and read back', async () => {
    const bytes = await pdf('Café crème | € 3,50 – “ok”', {}, 80);
    expect(bytes.toString('latin1')).not.toContain('/FontFile');
    expect(await pdfText(bytes)).toContain('Café crème');
    expect(await pdfText(bytes)).toContain('€ 3,50 – “ok”');
  });

  it('text outside WinAnsi takes the SVG path (DejaVu Sans Mono embedded) and reads back', async () => {
    const bytes = await pdf('Resistance | 10 Ω', {}, 80);
    expect(bytes.toString('latin1')).toContain('/FontFile2');
    expect(await pdfText(bytes)).toContain('10 Ω');
    expect((await pdfInfo(bytes)).stderr).toBe('');
  });

  it('an image takes the SVG path, which draws it', async () => {
    const png1x1 =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const bytes = await pdf('{image:{{ logo | raw }}}\nThanks', { logo: png1x1 }, 80);
    expect(bytes.toString('latin1')).toContain('/Subtype /Image');
    expect(await pdfText(bytes)).toContain('Thanks');
  });

  it('a QR code taller than the page is cut over two pages, the text around it on its own', async () => {
    // 2,000 digits: 149 modules of 8 dots, 1,192 dots; an A5 page holds 867.
    const bytes = await pdf(
      `Before\n{code:${'7'.repeat(2000)}; option:qrcode,8,l}\nAfter`,
      {},
      'a5',
    );
    const { fields, stderr } = await pdfInfo(bytes);
    expect(stderr).toBe('');
    expect(fields.get('Pages')).toBe('3');
    const pages = (await pdfText(bytes)).split('\f');
    expect(pages[0]).toContain('Before');
    expect(pages[2]).toContain('After');
    const modules = streams(bytes).map((page) => page.match(/ re\n/g)?.length ?? 0);
    // The page's content streams (the fonts have none): the code's rows on the second and third.
    expect(modules.filter((count) => count > 100).length).toBe(2);
  });

  it('the same data makes the same bytes, with no date in them', async () => {
    const [first, second] = [
      await pdf(note, { number: 'D-4', lines: lines(40) }, 'a4'),
      await pdf(note, { number: 'D-4', lines: lines(40) }, 'a4'),
    ];
    expect(first.equals(second)).toBe(true);
    expect(first.toString('latin1')).not.toMatch(/CreationDate|ModDate/);
  });

  it('the cross-reference table points at each object (ISO 32000-1 §7.5.4)', async () => {
    const bytes = await pdf(note, { number: 'D-5', lines: lines(90) }, 'a4');
    const file = bytes.toString('latin1');
    const startxref = Number(file.match(/startxref\n(\d+)\n%%EOF\n$/)![1]);
    expect(file.slice(startxref, startxref + 5)).toBe('xref\n');
    const [, first, count] = file
      .slice(startxref)
      .match(/^xref\n(\d+) (\d+)\n/)!
      .map(Number);
    expect(first).toBe(0);
    const table = file
      .slice(startxref)
      .split('\n')
      .slice(2, 2 + count!);
    expect(table[0]).toBe('0000000000 65535 f ');
    for (const [number, entry] of table.entries()) {
      if (number === 0) continue;
      expect(entry).toMatch(/^\d{10} 00000 n $/);
      const offset = Number(entry.slice(0, 10));
      expect(file.slice(offset, offset + `${number} 0 obj`.length)).toBe(`${number} 0 obj`);
    }
    expect(file).toMatch(new RegExp(`trailer\\n<< /Size ${count} /Root 1 0 R /Info 3 0 R >>`));
  });
});
