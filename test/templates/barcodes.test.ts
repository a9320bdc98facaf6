import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { InvalidFields } from '../../server/domain-errors.ts';
import { maxBarcodeLength, qrCapacity } from '../../server/templates/render/barcodes.ts';
import { toCodepage } from '../../server/templates/render/codepage.ts';
import { renderDocument } from '../../server/templates/render-document.ts';
import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { PreviewFormat } from '../../shared/templates.ts';
import {
  type CommandExtent,
  decodeEscposCode128,
  decodeStarCode128,
  readEscpos2d,
  readEscposBarcode,
  readStarBarcode,
  readStarRaster,
  readZplField,
} from './code-commands.ts';

/**
 * Barcode and QR data stays data, in every command set: each byte 0x00–0xFF is put in the
 * middle of a barcode's data, and the printer's bytes either are refused (a 422 naming the
 * character) or hold exactly one code command whose extent covers the data and nothing
 * more, followed by exactly the template's own commands (those of the same receipt with a
 * plain value). The commands are read by `code-commands.ts`, after Epson's and Star's
 * references, not by ReceiptLine.
 */

const render = async (
  type: string,
  value: string,
  language: 'escpos' | 'starprnt',
): Promise<Buffer> => {
  const source = `Before\n{code:{{ v }}; option:${type},2,hri}\nAfter`;
  const profile: PrinterProfile = { language, width_mm: 80 };
  const { bytes } = await renderDocument({ kind: 'receipt', source }, { v: value }, profile, 'raw');
  return bytes;
};

/** What escaping does to a value before ReceiptLine reads it: line breaks and tabs are spaces. */
const folded = (value: string) => value.replace(/[\r\n\t\v\f]+/g, ' ');

interface Case {
  type: string;
  /** The value with the swept character at `%`. */
  shape: string;
  /** A plain value of the same shape. */
  plain: string;
  /** The characters accepted at `%`. */
  accepts: (char: string) => boolean;
}

const digit = (char: string) => /^\d$/.test(char);
const cases: Case[] = [
  { type: 'upc', shape: '01234%567890', plain: '012345567890', accepts: digit },
  { type: 'upc', shape: '012%456', plain: '0123456', accepts: digit },
  { type: 'ean', shape: '490123%456789', plain: '4901234456789', accepts: digit },
  { type: 'ean', shape: '490%1234', plain: '49011234', accepts: digit },
  { type: 'jan', shape: '490123%456789', plain: '4901234456789', accepts: digit },
  {
    type: 'code39',
    shape: 'AB%12',
    plain: 'ABC12',
    accepts: (char) => /^[0-9A-Z\-. $/+%]$/.test(folded(char)),
  },
  { type: 'itf', shape: '12%4', plain: '1234', accepts: digit },
  {
    type: 'codabar',
    shape: 'A12%4B',
    plain: 'A1234B',
    accepts: (char) => /^[0-9\-$:/.+]$/.test(char),
  },
  { type: 'nw7', shape: 'A12%4B', plain: 'A1234B', accepts: (char) => /^[0-9\-$:/.+]$/.test(char) },
  {
    type: 'code93',
    shape: 'AB%12',
    plain: 'ABC12',
    accepts: (char) => /^[\x20-\x7e]$/.test(folded(char)),
  },
  { type: 'code128', shape: 'AB%12', plain: 'ABC12', accepts: (char) => char < '\x80' },
  { type: 'qrcode', shape: 'AB%12', plain: 'ABC12', accepts: () => true },
];

const everyByte = Array.from({ length: 256 }, (_, byte) => String.fromCharCode(byte));

/** The code command of `language` at `at`: its extent (a QR code on ESC/POS is five). */
function readCode(bytes: Buffer, at: number, type: string, language: string): CommandExtent {
  if (language === 'starprnt') {
    return type === 'qrcode' ? readStarRaster(bytes, at) : readStarBarcode(bytes, at);
  }
  if (type !== 'qrcode') {
    const barcode = readEscposBarcode(bytes, at);
    expect(barcode.m).toBeGreaterThanOrEqual(65); // counted, never NUL-terminated
    return barcode;
  }
  // Model, size, level, store (the data), print: five GS ( k functions.
  let end = at;
  let data: Buffer = Buffer.alloc(0);
  for (let i = 0; i < 5; i++) {
    const fn = readEscpos2d(bytes, end);
    if (fn.fn === 80) data = fn.data;
    end = fn.end;
  }
  return { end, data };
}

/** Where the code's command starts: the first of its kind after the text before it. */
function codeStart(bytes: Buffer, type: string, language: string): number {
  const after = bytes.indexOf('Before');
  const introducer =
    language === 'starprnt'
      ? type === 'qrcode'
        ? '\x1b\x1dS'
        : '\x1bb'
      : type === 'qrcode'
        ? '\x1d(k'
        : '\x1dk';
  const at = bytes.indexOf(Buffer.from(introducer, 'latin1'), after);
  expect(at).toBeGreaterThan(after);
  return at;
}

/** The data the command must carry for the value (the printer's own conventions aside). */
function expectData(type: string, language: string, value: string, data: Buffer): void {
  const text = folded(value);
  if (type === 'qrcode') {
    // StarPRNT's QR code is drawn: its command carries dots, never the data.
    if (language === 'escpos')
      expect(data).toEqual(iconv.encode(toCodepage(text, 'cp437'), 'cp437'));
    return;
  }
  if (type === 'code128') {
    const decoded = language === 'escpos' ? decodeEscposCode128(data) : decodeStarCode128(data);
    expect(decoded).toBe(text);
    return;
  }
  const bytes = data.toString('latin1');
  // Both printers take UPC-E as the UPC-A digits it stands for (ReceiptLine expands it).
  if (type === 'upc' && text.length < 9) {
    expect(bytes).toMatch(/^\d{11}$/);
    return;
  }
  if (language === 'escpos' && /upc|ean|jan/.test(type)) {
    // ESC/POS computes the check digit itself: the data is the digits before it.
    expect(bytes).toBe(text.slice(0, text.length >= 12 ? (type === 'upc' ? 11 : 12) : 7));
    return;
  }
  expect(bytes).toBe(text);
}

describe.each(['escpos', 'starprnt'] as const)('barcode data on %s', (language) => {
  it.each(cases)('$type ($shape): every byte is refused or stays in the command', async (c) => {
    const reference = await render(c.type, c.plain, language);
    const start = codeStart(reference, c.type, language);
    const { end } = readCode(reference, start, c.type, language);
    const before = reference.subarray(0, start);
    const after = reference.subarray(end);
    const accepted: number[] = [];
    for (const char of everyByte) {
      const value = c.shape.replace('%', char);
      let bytes: Buffer;
      try {
        bytes = await render(c.type, value, language);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidFields);
        expect(Object.keys((error as InvalidFields).errors)).toEqual(['data']);
        expect((error as Error).message).toContain(c.type);
        continue;
      }
      accepted.push(char.charCodeAt(0));
      expect(bytes.subarray(0, start)).toEqual(before);
      const code = readCode(bytes, start, c.type, language);
      expectData(c.type, language, value, code.data);
      // After the code: exactly the template's own commands, nothing of the data.
      expect(bytes.subarray(code.end)).toEqual(after);
    }
    expect(accepted).toEqual(
      everyByte.filter((char) => c.accepts(char)).map((char) => char.charCodeAt(0)),
    );
  });

  it('RS, BEL and ESC d 2 in a Code 39 order reference are refused, naming the character', async () => {
    await expect(render('code39', 'A1042\x1e\x07\x1bd2', language)).rejects.toThrow(
      'U+001E is not one of its characters',
    );
  });

  it('a ; in the data starts no property of its own (x: would send raw commands)', async () => {
    await expect(render('code39', 'A;x:\x07', language)).rejects.toThrow(
      'U+003B is not one of its characters',
    );
    const bytes = await render('code128', 'A;x:\x07\x1bd2', language);
    const reference = await render('code128', 'A;x:BCDEF', language);
    const start = codeStart(bytes, 'code128', language);
    const code = readCode(bytes, start, 'code128', language);
    expectData('code128', language, 'A;x:\x07\x1bd2', code.data);
    expect(bytes.subarray(code.end)).toEqual(
      reference.subarray(readCode(reference, start, 'code128', language).end),
    );
  });

  it("ReceiptLine's own characters and escapes stay in the data (Code 39 AB-12, Code 128 a|b{c}~^_ \\x1e)", async () => {
    const code39 = await render('code39', 'AB-12', language);
    expect(
      readCode(code39, codeStart(code39, 'code39', language), 'code39', language).data.toString(),
    ).toBe('AB-12');
    const value = 'a|b{c}~^_"`=\\-;\\x1e\\n';
    const code128 = await render('code128', value, language);
    expectData(
      'code128',
      language,
      value,
      readCode(code128, codeStart(code128, 'code128', language), 'code128', language).data,
    );
  });

  it('lengths: a barcode over its length, a QR code over its capacity, is refused', async () => {
    await render('code128', 'A'.repeat(maxBarcodeLength), language);
    // The longest Code 128 ESC/POS spells out (a code-set change around every character,
    // each { doubled) still fits GS k's one-byte count, so ReceiptLine never cuts it at 255.
    const longest = '\x01{'.repeat(maxBarcodeLength / 2);
    const bytes = await render('code128', longest, language);
    const code = readCode(bytes, codeStart(bytes, 'code128', language), 'code128', language);
    expectData('code128', language, longest, code.data);
    await expect(render('code128', 'A'.repeat(maxBarcodeLength + 1), language)).rejects.toThrow(
      `at most ${maxBarcodeLength} characters`,
    );
    await expect(render('ean', '4901234567', language)).rejects.toThrow('EAN-13: 12 or 13 digits');
    await render('qrcode', 'x'.repeat(qrCapacity.l!), language);
    await expect(render('qrcode', 'x'.repeat(qrCapacity.l! + 1), language)).rejects.toThrow(
      `at most ${qrCapacity.l}`,
    );
  });
});

describe('a refused barcode is refused in every format and on every printer', () => {
  const source = 'Order\n{code:{{ v }}; option:code39}';
  const cases: Array<[PreviewFormat, PrinterProfile['language']]> = [
    ['png', 'escpos'],
    ['svg', 'escpos'],
    ['pdf', 'escpos'],
    ['text', 'escpos'],
    ['raw', 'escpos'],
    ['raw', 'starprnt'],
    ['raw', 'pdf'],
    ['raw', 'text'],
    ['raw', 'zpl'],
  ];
  it.each(cases)('%s for %s', async (format, language) => {
    const rendering = renderDocument(
      { kind: 'receipt', source },
      { v: 'A\x1e\x07' },
      { language },
      format,
    );
    await expect(rendering).rejects.toThrow('U+001E');
  });
});

describe('barcode data on ZPL labels', () => {
  const zplFold = (char: string) => (char === '\r' || char === '\n' ? ' ' : char);
  const label = async (command: string, value: string) => {
    const source = `^XA^FO20,20^BY2^${command}^FD{{ v }}^FS^FO20,140^A0N,30^FDafter^FS^XZ`;
    const profile: PrinterProfile = { language: 'zpl', width_mm: 50 };
    const { bytes } = await renderDocument({ kind: 'label', source }, { v: value }, profile, 'raw');
    return bytes.toString('utf8');
  };
  const zplCases: Array<{ command: string; shape: string; accepts: (char: string) => boolean }> = [
    {
      command: 'B3N,N,80,Y,N',
      shape: 'AB%12',
      accepts: (c) => /^[0-9A-Z\-. $/+%]$/.test(zplFold(c)),
    },
    { command: 'BAN,80,Y,N,N', shape: 'AB%12', accepts: (c) => /^[\x20-\x7e]$/.test(zplFold(c)) },
    { command: 'BCN,80,Y,N,N', shape: 'AB%12', accepts: (c) => c < '\x80' },
    { command: 'B2N,80,Y,N,N', shape: '12%4', accepts: digit },
    { command: 'BEN,80,Y,N', shape: '490123%456789', accepts: digit },
    { command: 'B8N,80,Y,N', shape: '490%1234', accepts: digit },
    { command: 'BUN,80,Y,N,Y', shape: '01234%567890', accepts: digit },
    { command: 'B9N,80,Y,N,Y', shape: '012%456', accepts: digit },
    { command: 'BKN,N,80,Y,N,A,B', shape: 'A12%4B', accepts: (c) => /^[0-9\-$:/.+]$/.test(c) },
    { command: 'B1N,N,80,Y,N', shape: '12%4', accepts: (c) => /^[\d-]$/.test(c) },
    { command: 'BPN,N,80,Y,N', shape: '12%4', accepts: (c) => /^[\dA-F]$/.test(c) },
    { command: 'BQN,2,4', shape: 'QA,AB%12', accepts: () => true },
    { command: 'BXN,6,200', shape: 'AB%12', accepts: () => true },
  ];

  it.each(zplCases)(
    '^$command ($shape): every byte is refused or stays in its field',
    async (c) => {
      const reference = await label(c.command, c.shape.replace('%', '0'));
      const start = reference.indexOf('^FD');
      const after = reference.slice(readZplField(reference, start).end);
      const accepted: number[] = [];
      for (const char of everyByte) {
        const value = c.shape.replace('%', char);
        let zpl: string;
        try {
          zpl = await label(c.command, value);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidFields);
          continue;
        }
        accepted.push(char.charCodeAt(0));
        expect(zpl.slice(0, start)).toBe(reference.slice(0, start));
        const field = readZplField(zpl, start);
        expect(field.data).toEqual(Buffer.from(value.replace(/[\r\n]+/g, ' '), 'utf8'));
        expect(zpl.slice(field.end)).toBe(after);
      }
      expect(accepted).toEqual(
        everyByte.filter((char) => c.accepts(char)).map((char) => char.charCodeAt(0)),
      );
    },
  );
});
