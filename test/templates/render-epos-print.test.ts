import { describe, expect, it } from 'vitest';
import { InvalidFields } from '../../server/domain-errors.ts';
import {
  eposPrintNamespace,
  receiptToEposPrint,
} from '../../server/templates/render/epos-print.ts';
import { escapeReceiptLine, escapeXml } from '../../server/templates/render/escape.ts';
import { bitmapToPng } from '../../server/templates/render/png.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import {
  elementsNamed,
  parseXml,
  textOf,
  type XmlElement,
} from '../helpers/printer-simulators/epos-xml.ts';

/**
 * A receipt as ePOS-Print XML (Epson's ePOS-Print XML User's Manual: `<text>`, `<feed>`,
 * `<cut>`, `<barcode>`, `<symbol>`, `<image>`, `<pulse>`), each element read back by a strict
 * XML reader as the printer would; data that looks like markup stays text.
 */

const profile: PrinterProfile = { language: 'escpos', width_mm: 80 };
const render = (document: string, p: PrinterProfile = profile) =>
  parseXml(receiptToEposPrint(document, p));
const texts = (root: XmlElement) => elementsNamed(root, 'text').filter((t) => t.children.length);
const line = (root: XmlElement) => texts(root).map(textOf).join(' ').replace(/\s+/g, ' ').trim();

describe('ePOS-Print XML of a receipt', () => {
  it('is one <epos-print> in Epson’s namespace, ending with a feed cut', () => {
    const root = render('Hello');
    expect(root.name).toBe('epos-print');
    expect(root.attributes.xmlns).toBe(eposPrintNamespace);
    const last = root.children.at(-1) as XmlElement;
    expect(last).toMatchObject({ name: 'cut', attributes: { type: 'feed' } });
  });

  it('writes each line’s text at its place, then a <feed/>', () => {
    const root = render('Coffee | 2.50\nTea | 1.80');
    expect(elementsNamed(root, 'feed')).toHaveLength(2);
    const [coffee, price] = texts(root).filter((t) => textOf(t).trim());
    expect(textOf(coffee!)).toBe('Coffee');
    expect(coffee!.attributes.x).toBe('0');
    expect(textOf(price!)).toBe('2.50');
    // The price ends at the right edge: 48 columns of 12 dots.
    expect(Number(price!.attributes.x) + 4 * 12).toBe(576);
  });

  it.each([
    ['"bold"', { em: 'true', ul: 'false', reverse: 'false', width: '1', height: '1' }],
    ['_underlined_', { em: 'false', ul: 'true' }],
    ['`inverted`', { reverse: 'true' }],
    ['^wide', { width: '2', height: '1' }],
    ['^^tall', { width: '1', height: '2' }],
    ['^^^big', { width: '2', height: '2' }],
  ])('carries the style of %s', (document, attributes) => {
    const styled = texts(render(document)).find((t) => /\w/.test(textOf(t)));
    expect(styled?.attributes).toMatchObject(attributes);
  });

  it('aligns a centred QR code with <text align>, and draws it as <symbol> QR model 2', () => {
    const root = render('{code:https://x.example/1; option:qrcode,4,h}');
    const symbol = elementsNamed(root, 'symbol')[0];
    expect(symbol?.attributes).toMatchObject({
      type: 'qrcode_model_2',
      level: 'level_h',
      width: '4',
    });
    expect(textOf(symbol!)).toBe('https://x.example/1');
    expect(elementsNamed(root, 'text').some((t) => t.attributes.align === 'center')).toBe(true);
  });

  it.each([
    ['{code:1042; option:code128,2,72,hri}', 'code128', '{B1042', 'below'],
    ['{code:4006381333931; option:ean,3,64,nohri}', 'ean13', '4006381333931', 'none'],
    ['{code:ABC-1; option:code39,2,50,hri}', 'code39', 'ABC-1', 'below'],
  ])('writes %s as <barcode>', (document, type, data, hri) => {
    const barcode = elementsNamed(render(document), 'barcode')[0];
    expect(barcode?.attributes).toMatchObject({ type, hri });
    expect(textOf(barcode!)).toBe(data);
  });

  it('writes a CODE128 `{` as `{{`, so data cannot change the code set', () => {
    const data = escapeReceiptLine('A{C12');
    const barcode = elementsNamed(render(`{code:${data}; option:code128,2,72,hri}`), 'barcode')[0];
    expect(textOf(barcode!)).toBe('{BA{{C12');
  });

  it('refuses a barcode its symbology cannot hold, as for every printer', () => {
    expect(() => render('{code:12AB; option:ean,2,72,hri}')).toThrow(InvalidFields);
  });

  it('writes an image as <image> raster, one bit a dot, black set, rows padded to bytes', () => {
    // 10 x 2: the first row black from the left for 9 dots, the second white.
    const pixels = new Uint8Array(20).fill(255);
    pixels.fill(0, 0, 9);
    const png = bitmapToPng({ width: 10, height: 2, pixels }).toString('base64');
    const image = elementsNamed(render(`{image:${png}}`), 'image')[0];
    expect(image?.attributes).toMatchObject({
      width: '16',
      height: '2',
      color: 'color_1',
      mode: 'mono',
    });
    expect([...Buffer.from(textOf(image!), 'base64')]).toEqual([0xff, 0x80, 0, 0]);
  });

  it('cuts at a `=` line, and not at all on a printer without a cutter', () => {
    expect(elementsNamed(render('A\n=\nB'), 'cut')).toHaveLength(2);
    // A `=` last is the end's cut: the paper is not cut twice.
    expect(elementsNamed(render('A\n='), 'cut')).toHaveLength(1);
    expect(elementsNamed(render('A\n=\nB', { ...profile, cut: false }), 'cut')).toHaveLength(0);
  });

  it('opens the cash drawer at the end when the profile has one', () => {
    const root = render('A', { ...profile, drawer: true });
    expect(root.children.at(-1)).toMatchObject({
      name: 'pulse',
      attributes: { drawer: 'drawer_1' },
    });
  });

  it('lays out 32 columns on a 58 mm roll', () => {
    const [, price] = texts(render('A | 1.00', { language: 'escpos', width_mm: 58 }));
    expect(Number(price!.attributes.x) + 4 * 12).toBe(32 * 12);
  });
});

describe('data is text, never markup', () => {
  const hostile = [
    '</text><cut type="feed"/><text>',
    '<pulse drawer="drawer_1"/>',
    '&amp; &#60; &lt;',
    'it\'s "quoted" > and <',
    ']]><!-- <![CDATA[',
  ];

  it.each(hostile)('prints %j as written, and adds no element', (value) => {
    const root = render(`Name | ${escapeReceiptLine(value)}`);
    expect(line(root)).toBe(`Name ${value}`);
    expect(elementsNamed(root, 'cut')).toHaveLength(1);
    expect(elementsNamed(root, 'pulse')).toHaveLength(0);
  });

  it.each(hostile)('keeps %j as a QR code’s data', (value) => {
    const root = render(`{code:${escapeReceiptLine(value)}; option:qrcode,4,m}`);
    expect(textOf(elementsNamed(root, 'symbol')[0]!)).toBe(value);
    expect(elementsNamed(root, 'cut')).toHaveLength(1);
  });

  it('drops what XML cannot hold (control characters, a lone surrogate) to `?`', () => {
    const value = 'a\x00b\x1bc\x7f\ud800d';
    expect(escapeXml(value)).toBe('a?b?c\x7f?d');
    // A document with them is still well-formed (ReceiptLine drops the control characters).
    expect(line(render(`X | ${escapeReceiptLine(value)}`))).toBe('X abc?d');
  });

  it('escapes all five of XML’s special characters, in text and attributes alike', () => {
    expect(escapeXml(`<a href="x" title='y'>&</a>`)).toBe(
      '&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;',
    );
  });
});

describe('a template for a route whose profile is `epos`', () => {
  it('renders as ePOS-Print XML, its data escaped by the template and again as XML', async () => {
    const template = {
      kind: 'receipt' as const,
      source: 'Order | {{ name }}\n{code:{{ name }}; option:qrcode,4,m}',
    };
    const name = '</text><cut type="feed"/>{code:x}';
    const { contentType, bytes } = await renderDocument(
      template,
      { name },
      { language: 'epos' },
      'raw',
    );
    expect(contentType).toBe('application/vnd.epson.epos-print+xml');
    const root = parseXml(bytes.toString('utf8'));
    expect(line(root)).toBe(`Order ${name}`);
    expect(textOf(elementsNamed(root, 'symbol')[0]!)).toBe(name);
    expect(elementsNamed(root, 'cut')).toHaveLength(1);
  });
});
