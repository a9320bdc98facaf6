import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { PrinterCapabilities, SheetSize } from '../../../shared/printer-capabilities.ts';
import type { PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import { printOptionsSchema } from '../../../shared/printing.ts';
import {
  failure,
  type PrintableJob,
  type PrinterBackend,
  type PrintOutcome,
  plainTitle,
} from './backend.ts';
import { makeTempCopyDir, tempCopyPrefix, writeTempCopy } from './temp-copies.ts';
import { listCapabilitiesArguments, parseWindowsCapabilities } from './windows-capabilities.ts';
import { listPrintersArguments, parseWindowsPrinters } from './windows-status.ts';

/**
 * Windows back-end. PDFs go through pdf-to-printer (SumatraPDF, run with an argument array).
 * Everything else (ZPL, ESC/POS, plain text for receipt printers) goes to the spooler as a
 * RAW document through winspool's OpenPrinter/StartDocPrinter/WritePrinter, called from a
 * PowerShell script that is a constant of this file: the printer name, title, file path and
 * copies reach it as environment variables, so PowerShell never parses them as code.
 */

/** The part of pdf-to-printer used here; injected in tests (no Windows there). */
export interface PdfToPrinter {
  print(pdf: string, options?: Record<string, unknown>): Promise<void>;
}

export type RunPowerShell = (
  args: readonly string[],
  env: Record<string, string>,
  timeoutMs: number,
) => Promise<{ stdout: string; stderr: string }>;

// biome-ignore lint/complexity/noUselessStringRaw: PowerShell and C# source; String.raw keeps any backslash a later edit adds exactly as written.
export const rawPrintScript = String.raw`$ErrorActionPreference = 'Stop'
$source = @'
using System;
using System.ComponentModel;
using System.Runtime.InteropServices;
public static class ShopDeskRawPrinter {
  [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Unicode)]
  public class DocInfo {
    [MarshalAs(UnmanagedType.LPWStr)] public string DocName;
    [MarshalAs(UnmanagedType.LPWStr)] public string OutputFile;
    [MarshalAs(UnmanagedType.LPWStr)] public string DataType;
  }
  [DllImport("winspool.drv", CharSet = CharSet.Unicode, SetLastError = true)]
  static extern bool OpenPrinter(string name, out IntPtr handle, IntPtr defaults);
  [DllImport("winspool.drv", SetLastError = true)]
  static extern bool ClosePrinter(IntPtr handle);
  [DllImport("winspool.drv", CharSet = CharSet.Unicode, SetLastError = true)]
  static extern int StartDocPrinter(IntPtr handle, int level, [In] DocInfo info);
  [DllImport("winspool.drv", SetLastError = true)]
  static extern bool EndDocPrinter(IntPtr handle);
  [DllImport("winspool.drv", SetLastError = true)]
  static extern bool StartPagePrinter(IntPtr handle);
  [DllImport("winspool.drv", SetLastError = true)]
  static extern bool EndPagePrinter(IntPtr handle);
  [DllImport("winspool.drv", SetLastError = true)]
  static extern bool WritePrinter(IntPtr handle, byte[] bytes, int count, out int written);
  static Exception LastError(string what) {
    return new Win32Exception(Marshal.GetLastWin32Error(), what);
  }
  public static int Send(string printer, string title, byte[] bytes, int copies) {
    IntPtr handle;
    if (!OpenPrinter(printer, out handle, IntPtr.Zero)) throw LastError("OpenPrinter");
    try {
      DocInfo info = new DocInfo();
      info.DocName = title;
      info.DataType = "RAW";
      int job = StartDocPrinter(handle, 1, info);
      if (job == 0) throw LastError("StartDocPrinter");
      try {
        for (int copy = 0; copy < copies; copy++) {
          if (!StartPagePrinter(handle)) throw LastError("StartPagePrinter");
          int written;
          if (!WritePrinter(handle, bytes, bytes.Length, out written) || written != bytes.Length) {
            throw LastError("WritePrinter");
          }
          EndPagePrinter(handle);
        }
      } finally {
        EndDocPrinter(handle);
      }
      return job;
    } finally {
      ClosePrinter(handle);
    }
  }
}
'@
Add-Type -TypeDefinition $source -Language CSharp
$bytes = [System.IO.File]::ReadAllBytes($env:SHOPDESK_PRINT_FILE)
$job = [ShopDeskRawPrinter]::Send($env:SHOPDESK_PRINTER, $env:SHOPDESK_TITLE, $bytes, [int]$env:SHOPDESK_COPIES)
[Console]::Out.Write("job=$job")
`;

/** `-EncodedCommand` takes the script as base64 of UTF-16LE: no quoting of it either. */
export const rawPrintArguments: readonly string[] = [
  '-NoProfile',
  '-NonInteractive',
  '-ExecutionPolicy',
  'Bypass',
  '-EncodedCommand',
  Buffer.from(rawPrintScript, 'utf16le').toString('base64'),
];

const runPowerShell: RunPowerShell = (args, env, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(
      'powershell.exe',
      args,
      { env: { ...process.env, ...env }, timeout: timeoutMs, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stderr: String(stderr) }));
        else resolve({ stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });

/**
 * Inside a packaged Electron app, pdf-to-printer's directory is inside app.asar, from which
 * Windows cannot start an .exe; electron-builder unpacks it beside, in app.asar.unpacked.
 * (pdf-to-printer does this itself only when `process.mainModule` is set, which it is not
 * under ES modules.)
 */
export function sumatraPathOutsideAsar(pdfToPrinterDir: string): string {
  return join(pdfToPrinterDir, 'SumatraPDF-3.4.6-32.exe').replace(
    /app\.asar(?=[\\/])/,
    'app.asar.unpacked',
  );
}

function resolvePdfToPrinterDir(): string {
  return dirname(createRequire(import.meta.url).resolve('pdf-to-printer'));
}

const sideByDuplex = { none: 'simplex', 'long-edge': 'duplexlong', 'short-edge': 'duplexshort' };
/** SumatraPDF's paper names; a roll is what is loaded, so none is asked for. */
const paperSizes: Record<SheetSize, string> = {
  a3: 'A3',
  a4: 'A4',
  a5: 'A5',
  a6: 'A6',
  b5: 'B5',
  letter: 'Letter',
  legal: 'Legal',
  executive: 'Executive',
};

/** pdf-to-printer options (SumatraPDF `-print-settings`) for a job. */
export function pdfPrintOptions(
  job: PrintableJob,
  printer: string,
  options: PrintOptions,
  sumatraPdfPath: string,
): Record<string, unknown> {
  const checked = printOptionsSchema.parse(options);
  const result: Record<string, unknown> = {
    printer,
    copies: job.copies,
    silent: true,
    sumatraPdfPath,
  };
  const paper = checked.paper ? paperSizes[checked.paper as SheetSize] : undefined;
  if (paper) result['paperSize'] = paper;
  if (checked.color) result['monochrome'] = checked.color === 'monochrome';
  if (checked.duplex) result['side'] = sideByDuplex[checked.duplex];
  if (checked.orientation) result['orientation'] = checked.orientation;
  if (checked.fit !== undefined) result['scale'] = checked.fit ? 'fit' : 'noscale';
  if (checked.pages) result['pages'] = checked.pages;
  return result;
}

/** Windows printer names: local (`Zebra ZD421`) or shared (`\\server\Zebra`); no control characters. */
export function isValidWindowsPrinterName(name: string): boolean {
  return (
    name.length >= 1 && name.length <= 255 && !/[\p{Cc},]/u.test(name) && !name.startsWith('-')
  );
}

export interface WindowsBackendOptions {
  pdfToPrinter?: () => Promise<PdfToPrinter>;
  runPowerShell?: RunPowerShell;
  pdfToPrinterDir?: () => string;
  timeoutMs?: number;
  /** How its temporary copies are named (temp-copies.ts); the runtime names them per agent. */
  tempPrefix?: string;
  now?: () => number;
  /** How long the printers' capabilities are kept before they are read again. */
  capabilitiesTtlMs?: number;
}

export class WindowsBackend implements PrinterBackend {
  private readonly loadPdfToPrinter: () => Promise<PdfToPrinter>;
  private readonly runPowerShell: RunPowerShell;
  private readonly pdfToPrinterDir: () => string;
  private readonly timeoutMs: number;
  private readonly tempPrefix: string;
  private readonly now: () => number;
  private readonly capabilitiesTtlMs: number;
  private capabilitiesRead:
    | { at: number; byName: Map<string, PrinterCapabilities>; asked: Set<string> }
    | undefined;

  constructor(options: WindowsBackendOptions = {}) {
    this.now = options.now ?? Date.now;
    this.capabilitiesTtlMs = options.capabilitiesTtlMs ?? 10 * 60_000;
    this.loadPdfToPrinter =
      options.pdfToPrinter ??
      // A CommonJS bundle: its exports are the default export under ES modules.
      (async () => (await import('pdf-to-printer')).default as unknown as PdfToPrinter);
    this.runPowerShell = options.runPowerShell ?? runPowerShell;
    this.pdfToPrinterDir = options.pdfToPrinterDir ?? resolvePdfToPrinterDir;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.tempPrefix = options.tempPrefix ?? tempCopyPrefix;
  }

  /** `Get-Printer` through the constant script of windows-status.ts: names, default, state. */
  async listPrinters(): Promise<PrinterInfo[]> {
    let stdout: string;
    try {
      ({ stdout } = await this.runPowerShell(listPrintersArguments, {}, 30_000));
    } catch (error) {
      throw new Error(`Get-Printer failed: ${errorText(error)}`);
    }
    const printers = parseWindowsPrinters(stdout);
    const capabilities = await this.capabilities(printers.map((printer) => printer.name));
    return printers.map((printer) => {
      const found = capabilities.get(printer.name);
      return found ? { ...printer, capabilities: found } : printer;
    });
  }

  /**
   * The printers' capabilities (windows-capabilities.ts): read again when a printer appears
   * that was not read, and every ten minutes; kept when a read fails (they are optional).
   */
  private async capabilities(names: string[]): Promise<Map<string, PrinterCapabilities>> {
    const kept = this.capabilitiesRead;
    if (
      kept &&
      this.now() - kept.at < this.capabilitiesTtlMs &&
      names.every((name) => kept.byName.has(name) || kept.asked.has(name))
    ) {
      return kept.byName;
    }
    try {
      const { stdout } = await this.runPowerShell(listCapabilitiesArguments, {}, 60_000);
      this.capabilitiesRead = {
        at: this.now(),
        byName: parseWindowsCapabilities(stdout),
        asked: new Set(names),
      };
    } catch {
      this.capabilitiesRead = {
        at: this.now(),
        byName: kept?.byName ?? new Map(),
        asked: new Set(names),
      };
    }
    return this.capabilitiesRead.byName;
  }

  async print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome> {
    if (!isValidWindowsPrinterName(printer)) {
      return failure('invalid_printer', `"${printer}" is not a valid Windows printer name`);
    }
    // SumatraPDF and the raw script read the file while they print: removed only after.
    const dir = await makeTempCopyDir(this.tempPrefix);
    try {
      const isPdf = job.content_type === 'application/pdf';
      const name = isPdf ? `job-${job.id}.pdf` : `job-${job.id}.bin`;
      const file = await writeTempCopy(dir, name, document);
      return isPdf
        ? await this.printPdf(job, file, printer, options)
        : await this.printRaw(job, file, printer);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async printPdf(
    job: PrintableJob,
    file: string,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome> {
    let settings: Record<string, unknown>;
    try {
      settings = pdfPrintOptions(
        job,
        printer,
        options,
        sumatraPathOutsideAsar(this.pdfToPrinterDir()),
      );
    } catch (error) {
      return failure('invalid_options', `the job's print options are not valid: ${error}`);
    }
    try {
      await (await this.loadPdfToPrinter()).print(file, settings);
      return { ok: true, printer, spoolerJobId: null };
    } catch (error) {
      return failure(
        'spooler_rejected',
        `SumatraPDF could not print to ${printer}: ${errorText(error)}`,
      );
    }
  }

  private async printRaw(job: PrintableJob, file: string, printer: string): Promise<PrintOutcome> {
    try {
      const { stdout } = await this.runPowerShell(
        rawPrintArguments,
        {
          SHOPDESK_PRINTER: printer,
          SHOPDESK_TITLE: plainTitle(job),
          SHOPDESK_PRINT_FILE: file,
          SHOPDESK_COPIES: String(job.copies),
        },
        this.timeoutMs,
      );
      const spoolerJobId = /job=(\d+)/.exec(stdout)?.[1] ?? null;
      return { ok: true, printer, spoolerJobId };
    } catch (error) {
      return failure(
        'spooler_rejected',
        `the Windows spooler refused the job for ${printer}: ${errorText(error)}`,
      );
    }
  }
}

function errorText(error: unknown): string {
  const stderr = (error as { stderr?: unknown }).stderr;
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim().split('\n')[0]!;
  return error instanceof Error ? error.message : String(error);
}
