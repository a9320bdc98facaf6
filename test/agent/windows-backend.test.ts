import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type PdfToPrinter,
  rawPrintArguments,
  rawPrintScript,
  sumatraPathOutsideAsar,
  WindowsBackend,
} from '../../agent/core/printers/windows.ts';

/** Records what would have run on Windows, and reads the document while it still exists. */
function fakeWindows() {
  const powershell: Array<{
    args: readonly string[];
    env: Record<string, string>;
    document: Buffer;
  }> = [];
  const pdfPrints: Array<{ file: string; options: Record<string, unknown>; document: Buffer }> = [];
  const pdfToPrinter: PdfToPrinter = {
    print: async (file, options = {}) => {
      pdfPrints.push({ file, options, document: await readFile(file) });
    },
  };
  const backend = new WindowsBackend({
    pdfToPrinter: async () => pdfToPrinter,
    runPowerShell: async (args, env) => {
      powershell.push({ args, env, document: await readFile(env['SHOPDESK_PRINT_FILE']!) });
      return { stdout: 'job=17', stderr: '' };
    },
    pdfToPrinterDir: () =>
      'C:\\Program Files\\ShopDesk\\resources\\app.asar\\node_modules\\pdf-to-printer\\dist',
  });
  return { backend, powershell, pdfPrints };
}

describe('Windows back-end (Windows faked: no Windows here)', () => {
  it('sends ZPL as a RAW document through the constant winspool script, values in the environment only', async () => {
    const { backend, powershell } = fakeWindows();
    const zpl = Buffer.from('^XA^FDlabel^FS^XZ');
    const outcome = await backend.print(
      { id: 9, title: 'Label 9', content_type: 'application/vnd.zebra.zpl', copies: 3 },
      zpl,
      'Zebra ZD421',
      {},
    );
    expect(outcome).toEqual({ ok: true, printer: 'Zebra ZD421', spoolerJobId: '17' });
    expect(powershell).toHaveLength(1);
    const call = powershell[0]!;
    expect(call.args).toEqual(rawPrintArguments);
    const encoded = call.args[call.args.indexOf('-EncodedCommand') + 1]!;
    expect(Buffer.from(encoded, 'base64').toString('utf16le')).toBe(rawPrintScript);
    expect(rawPrintScript).toContain('DataType = "RAW"');
    expect(call.env).toMatchObject({
      SHOPDESK_PRINTER: 'Zebra ZD421',
      SHOPDESK_TITLE: 'Label 9',
      SHOPDESK_COPIES: '3',
    });
    expect(call.document.equals(zpl)).toBe(true);
    // The temp file is gone afterwards.
    expect(existsSync(call.env['SHOPDESK_PRINT_FILE']!)).toBe(false);
  });

  it.each([`'; touch pwned #`, '$(touch pwned)', '"; Remove-Item C:\\ -Recurse; "'])(
    'passes a hostile printer name and title %s as data, never in the command line',
    async (payload) => {
      const { backend, powershell } = fakeWindows();
      await backend.print(
        { id: 10, title: payload, content_type: 'application/vnd.escpos', copies: 1 },
        Buffer.from('x'),
        payload,
        {},
      );
      const call = powershell[0]!;
      expect(call.args).toEqual(rawPrintArguments);
      expect(call.args.join(' ')).not.toContain(payload);
      expect(call.env['SHOPDESK_PRINTER']).toBe(payload);
      expect(call.env['SHOPDESK_TITLE']).toBe(payload);
      expect(existsSync(join(process.cwd(), 'pwned'))).toBe(false);
      expect(existsSync(join(tmpdir(), 'pwned'))).toBe(false);
    },
  );

  it('prints a PDF with SumatraPDF from app.asar.unpacked, options mapped', async () => {
    const { backend, pdfPrints } = fakeWindows();
    const pdf = Buffer.from('%PDF-1.4 test');
    const outcome = await backend.print(
      { id: 11, title: 'Invoice', content_type: 'application/pdf', copies: 2 },
      pdf,
      'HP LaserJet',
      { paper: 'a4', duplex: 'long-edge', orientation: 'landscape', fit: true, pages: '1-2' },
    );
    expect(outcome.ok).toBe(true);
    expect(pdfPrints).toHaveLength(1);
    expect(pdfPrints[0]!.document.equals(pdf)).toBe(true);
    expect(pdfPrints[0]!.options).toEqual({
      printer: 'HP LaserJet',
      copies: 2,
      silent: true,
      // path.join is the platform's: on Windows all backslashes.
      sumatraPdfPath: join(
        'C:\\Program Files\\ShopDesk\\resources\\app.asar.unpacked\\node_modules\\pdf-to-printer\\dist',
        'SumatraPDF-3.4.6-32.exe',
      ),
      paperSize: 'A4',
      side: 'duplexlong',
      orientation: 'landscape',
      scale: 'fit',
      pages: '1-2',
    });
  });

  it('refuses an option value that is not in the closed set', async () => {
    const { backend, pdfPrints } = fakeWindows();
    const outcome = await backend.print(
      { id: 12, title: 'x', content_type: 'application/pdf', copies: 1 },
      Buffer.from('%PDF'),
      'HP LaserJet',
      { pages: '1 -print-to evil' } as never,
    );
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_options' });
    expect(pdfPrints).toHaveLength(0);
  });

  it('reports what the spooler said when the raw print fails', async () => {
    const backend = new WindowsBackend({
      runPowerShell: async () => {
        throw Object.assign(new Error('exit 1'), {
          stderr: 'Exception calling "Send": "OpenPrinter: The printer name is invalid"\r\nmore',
        });
      },
    });
    const outcome = await backend.print(
      { id: 13, title: 'x', content_type: 'application/vnd.zebra.zpl', copies: 1 },
      Buffer.from('^XA^XZ'),
      'Missing Printer',
      {},
    );
    expect(outcome).toMatchObject({ ok: false, code: 'spooler_rejected' });
    expect(outcome.ok ? '' : outcome.message).toContain('The printer name is invalid');
  });

  it('leaves a path outside app.asar as it is', () => {
    expect(sumatraPathOutsideAsar('/opt/shopdesk/node_modules/pdf-to-printer/dist')).toBe(
      '/opt/shopdesk/node_modules/pdf-to-printer/dist/SumatraPDF-3.4.6-32.exe',
    );
  });
});

describe('Windows back-end wiring', () => {
  it('loads the real pdf-to-printer module by default (its functions, not a namespace)', async () => {
    const loaded = (await import('pdf-to-printer')).default as unknown as PdfToPrinter;
    expect(typeof loaded.print).toBe('function');
  });
});
