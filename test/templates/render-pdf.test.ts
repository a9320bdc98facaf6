import { describe, expect, it } from 'vitest';
import { renderDocument } from '../../server/templates/render-document.ts';
import { pdfText } from '../helpers/system-programs.ts';

/** The PDF a receipt renders to holds its text, as pdftotext (poppler) reads it. */
describe('a receipt as PDF', () => {
  const source = {
    kind: 'receipt' as const,
    source:
      '^^Delivery note {{ number }}\n{% for line in lines %}{{ line.name }} | {{ line.qty }}\n{% endfor %}',
  };

  it('on an 80 mm roll: one page with every line', async () => {
    const data = { number: 'D-7', lines: [{ name: 'Flour 1 kg', qty: 3 }] };
    const { contentType, bytes } = await renderDocument(
      source,
      data,
      { language: 'pdf', width_mm: 80 },
      'raw',
    );
    expect(contentType).toBe('application/pdf');
    const text = await pdfText(bytes);
    expect(text).toContain('Delivery note D-7');
    expect(text).toMatch(/Flour 1 kg\s+3/);
  });

  it('on A4: a long note over several pages, each line once', async () => {
    const lines = Array.from({ length: 120 }, (_, index) => ({
      name: `Item ${index + 1}`,
      qty: index,
    }));
    const { bytes } = await renderDocument(
      source,
      { number: 'D-8', lines },
      { language: 'pdf', width_mm: 'a4' },
      'raw',
    );
    const text = await pdfText(bytes);
    expect(text.split('\f').filter((page) => page.trim() !== '').length).toBeGreaterThan(1);
    for (const index of [1, 60, 120]) {
      expect(text.match(new RegExp(`Item ${index}\\s`, 'g'))?.length).toBe(1);
    }
  });

  it('text outside WinAnsi is kept (DejaVu Sans Mono embedded)', async () => {
    const { bytes } = await renderDocument(
      source,
      { number: 'Ĉ-9', lines: [] },
      { language: 'pdf', width_mm: 80 },
      'raw',
    );
    expect(await pdfText(bytes)).toContain('Ĉ-9');
  });

  it('lines drawn in scripts carry their text: Japanese, and Arabic in its reading order', async () => {
    const { bytes } = await renderDocument(
      { kind: 'receipt', source: 'Order | 7\nありがとうございました\nشكرا لزيارتكم' },
      {},
      { language: 'pdf', width_mm: 80 },
      'raw',
    );
    const text = (await pdfText(bytes)).replace(/[\u200e\u200f\u202a-\u202e]/g, '');
    expect(text).toMatch(/Order\s+7/);
    expect(text).toContain('ありがとうございました');
    expect(text).toContain('شكرا لزيارتكم');
  });
});
