import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidFields } from '../../server/domain-errors.ts';
import { toCodepage } from '../../server/templates/render/codepage.ts';
import { escapeReceiptLine, escapeZplField } from '../../server/templates/render/escape.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';

/**
 * Rendering, without a server: each printer language's bytes (golden: their sha256, and the
 * commands that matter in them), the PNG's size, escaping (data is data, never markup) and
 * the code page's transliteration. The PDF's text is read by pdftotext in render-pdf.test.ts.
 */

const receipt = {
  kind: 'receipt' as const,
  source: [
    '^^Demo Shop',
    'Order | {{ order.number }}',
    '{% for item in items %}{{ item.name }} | {{ item.price | money }}',
    '{% endfor %}-',
    'Total | {{ total | money: "EUR" }}',
    '{code:{{ order.number }}; option:code128,2,72,hri}',
    '=',
  ].join('\n'),
};
const data = {
  order: { number: '1042' },
  items: [
    { name: 'Coffee', price: 2.5 },
    { name: 'Croissant', price: 1.8 },
  ],
  total: 4.3,
};
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const render = (
  profile: PrinterProfile,
  format: 'raw' | 'png' | 'svg' | 'text' = 'raw',
  d = data,
) => renderDocument(receipt, d, profile, format);

describe('a receipt in each printer language', () => {
  it('ESC/POS: initialised, the text in the code page, cut; the same bytes every time', async () => {
    const { contentType, bytes } = await render({ language: 'escpos', width_mm: 80 });
    expect(contentType).toBe('application/vnd.escpos');
    const text = bytes.toString('latin1');
    expect(text.startsWith('\x1b@')).toBe(true); // ESC @: initialise
    expect(text).toContain('Coffee');
    expect(text).toContain('2.50');
    expect(text).toContain('4.30 EUR');
    expect(text).toContain('\x1dk'); // GS k: the barcode
    expect(text).toContain('\x1dV'); // GS V: cut
    expect(sha((await render({ language: 'escpos', width_mm: 80 })).bytes)).toBe(sha(bytes));
  });

  it("ESC/POS draws a QR code with the printer's own command (GS ( k), StarPRNT as an image", async () => {
    const qr = {
      kind: 'receipt' as const,
      source: '{code:https://x.example/1; option:qrcode,4,m}',
    };
    const escpos = (await renderDocument(qr, {}, { language: 'escpos' }, 'raw')).bytes.toString(
      'latin1',
    );
    expect(escpos).toContain('\x1d(k\x04\x001A2\x00'); // model 2
    expect(escpos).toContain('\x1d(k\x03\x001C\x04'); // 4-dot cells
    expect(escpos).toContain('\x1d(k\x03\x001E1'); // level M
    expect(escpos).toContain('\x1d(k\x16\x001P0https://x.example/1'); // 19 bytes + 3
    expect(escpos).toContain('\x1d(k\x03\x001Q0'); // print
    expect(escpos).not.toContain('\x1d8L'); // no raster image
    expect(escpos).not.toContain('\x1dv0');
  });

  it('ESC/POS without a cut, with the drawer kick', async () => {
    const { bytes } = await render({ language: 'escpos', width_mm: 80, cut: false, drawer: true });
    const text = bytes.toString('latin1');
    expect(text).not.toContain('\x1dV');
    expect(text.endsWith('\x1bp\x00\x19\xfa')).toBe(true);
  });

  it('StarPRNT: its own initialisation and cut, not ESC/POS', async () => {
    const { contentType, bytes } = await render({ language: 'starprnt', width_mm: 58 });
    expect(contentType).toBe('application/vnd.star.starprnt');
    const text = bytes.toString('latin1');
    expect(text).toContain('Coffee');
    expect(text).toContain('\x1bd'); // ESC d n: StarPRNT's cut
    expect(text).not.toContain('\x1dV');
  });

  it('text: one printed line a line, as many columns as the roll holds', async () => {
    const { contentType, bytes } = await render({ language: 'text', width_mm: 58 });
    expect(contentType).toBe('text/plain');
    const lines = bytes.toString('utf8').split('\n');
    expect(lines).toContain(`Coffee${' '.repeat(32 - 'Coffee'.length - 4)}2.50`);
  });

  it('ZPL: a receipt on a label printer is one ^GF graphic as wide as the label', async () => {
    const { contentType, bytes } = await render({ language: 'zpl', width_mm: 50, dpi: 203 });
    expect(contentType).toBe('application/vnd.zebra.zpl');
    const zpl = bytes.toString('latin1');
    expect(zpl).toMatch(/^\^XA\^PW400\^LL\d+\^FO0,0\^GFA,\d+,\d+,50,[0-9A-F]+\^FS\^XZ\n$/);
  });

  it('PNG: an 80 mm receipt is 576 dots wide at 203 dpi, 58 mm 384', async () => {
    for (const [width, dots] of [
      [80, 576],
      [58, 384],
    ] as const) {
      const { contentType, bytes } = await render({ language: 'escpos', width_mm: width }, 'png');
      expect(contentType).toBe('image/png');
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.readUInt32BE(16)).toBe(dots); // IHDR width
    }
  });

  it('PDF: the same data makes the same bytes (no creation time in it)', async () => {
    const pdf = () => render({ language: 'pdf', width_mm: 80 });
    const [first, second] = [await pdf(), await pdf()];
    expect(first.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(first.bytes.equals(second.bytes)).toBe(true);
  });

  it('SVG fetches nothing: no web font import', async () => {
    const { bytes } = await render({ language: 'escpos', width_mm: 80 }, 'svg');
    expect(bytes.toString()).not.toMatch(/@import|https?:\/\/fonts/);
  });
});

describe('data is data, never markup', () => {
  it.each([
    ['Demo | Shop {code:x}', 'Demo | Shop {code:x}'],
    ['~_^`"\\', '~_^`"\\'],
    ['-', '-'],
    ['==', '=='],
  ])('%j prints literally in a receipt', async (value, printed) => {
    const source = { kind: 'receipt' as const, source: 'Name: {{ value }}' };
    const { bytes } = await renderDocument(source, { value }, { language: 'text' }, 'raw');
    expect(bytes.toString('utf8')).toContain(`Name: ${printed}`);
  });

  it('a value cannot make a barcode, a rule or a column; `| raw` can', async () => {
    const source = { kind: 'receipt' as const, source: '{{ value }}\n{{ value | raw }}' };
    const value = '{code:123; option:code128}';
    const { bytes } = await renderDocument(source, { value }, { language: 'escpos' }, 'raw');
    const text = bytes.toString('latin1');
    expect(text).toContain(value); // the escaped one, printed as text
    expect(text).toContain('\x1dk'); // the raw one: a barcode
  });

  it('escapes every ReceiptLine special character as a hex escape and folds line breaks', () => {
    expect(escapeReceiptLine('a|b{c}~^`_"\\-=;\nz')).toBe(
      'a\\x7cb\\x7bc\\x7d\\x7e\\x5e\\x60\\x5f\\x22\\x5c\\x2d\\x3d\\x3b z',
    );
  });

  it('inside a {code:…} property a value keeps every character and starts no member', async () => {
    // A backslash before `-` is dropped, character and all, inside a property, and a bare
    // `;` starts another member: `x:` would have sent the rest to the printer as it is.
    const source = { kind: 'receipt' as const, source: '{code:{{ value }}; option:code128}' };
    const value = 'A-1;x:B=_';
    const { bytes } = await renderDocument(source, { value }, { language: 'starprnt' }, 'raw');
    expect(bytes.toString('latin1')).toContain(`${value}\x1e`);
  });

  it('ZPL field data goes through ^FH hex escapes: ^XA in data starts nothing', async () => {
    const label = { kind: 'label' as const, source: '^XA^FO20,20^A0N,30^FD{{ name }}^FS^XZ' };
    const { bytes } = await renderDocument(label, { name: '^XA~JR_é' }, { language: 'zpl' }, 'raw');
    expect(bytes.toString('utf8')).toBe('^XA^CI28^FO20,20^A0N,30^FH_^FD_5EXA_7EJR_5F_C3_A9^FS^XZ');
    expect(escapeZplField('a^b')).toBe('a_5Eb');
  });

  it('a label prints on a zpl printer only', async () => {
    const label = { kind: 'label' as const, source: '^XA^FDx^FS^XZ' };
    await expect(renderDocument(label, {}, { language: 'escpos' }, 'raw')).rejects.toThrow(
      InvalidFields,
    );
  });
});

describe('images', () => {
  const png1x1 =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

  it('a PNG in base64 prints; anything else, or a huge one, is a 422', async () => {
    const source = { kind: 'receipt' as const, source: '{image:{{ logo | raw }}}' };
    const ok = await renderDocument(source, { logo: png1x1 }, { language: 'escpos' }, 'raw');
    expect(ok.bytes.length).toBeGreaterThan(0);
    for (const logo of ['R0lGODlhAQABAAAAACw=', `${png1x1.slice(0, 11)}${'A'.repeat(400_000)}`]) {
      await expect(renderDocument(source, { logo }, { language: 'escpos' }, 'raw')).rejects.toThrow(
        InvalidFields,
      );
    }
  });
});

describe('code pages', () => {
  it('keeps what the code page has, transliterates or replaces the rest visibly', () => {
    expect(toCodepage('Crème brûlée', 'cp437')).toBe('Crème brûlée');
    expect(toCodepage('Ĉu € — “x”', 'cp437')).toBe('Cu EUR - "x"');
    expect(toCodepage('€', 'cp858')).toBe('€');
    expect(toCodepage('日本', 'cp437')).toBe('??');
  });

  it('a transliterated quote is not markup: it prints as a quote, not emphasis', async () => {
    const source = { kind: 'receipt' as const, source: 'Say “hi”' };
    const { bytes } = await renderDocument(
      source,
      {},
      { language: 'escpos', codepage: 'cp437' },
      'raw',
    );
    const text = bytes.toString('latin1');
    expect(text).toContain('Say "hi"');
    expect(text).not.toContain('\x1bE1'); // ESC E 1: emphasis
  });

  it('é is the code page byte in ESC/POS (cp437: 0x82)', async () => {
    const source = { kind: 'receipt' as const, source: 'Café' };
    const { bytes } = await renderDocument(
      source,
      {},
      { language: 'escpos', codepage: 'cp437' },
      'raw',
    );
    expect(bytes.includes(Buffer.from([0x43, 0x61, 0x66, 0x82]))).toBe(true);
  });
});
