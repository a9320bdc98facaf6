import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ContentType, PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import { writeFileAtomic } from '../atomic-file.ts';
import { failure, type PrintableJob, type PrinterBackend, type PrintOutcome } from './backend.ts';

export const folderPrinterPrefix = 'folder:';

const extensions: Record<ContentType, string> = {
  'application/pdf': 'pdf',
  'application/vnd.zebra.zpl': 'zpl',
  'application/vnd.escpos': 'escpos',
  'text/plain': 'txt',
};

export function isFolderPrinter(printer: string): boolean {
  return printer.startsWith(folderPrinterPrefix);
}

/** `<id>-<title>.<ext>`, the title reduced to characters every file system accepts. */
export function folderFileName(job: PrintableJob): string {
  const title = (job.title ?? '')
    // "crème" → "creme" rather than "cre_me": accents dropped, not replaced.
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|[._]+$/g, '')
    .slice(0, 80);
  return `${job.id}${title === '' ? '' : `-${title}`}.${extensions[job.content_type]}`;
}

/**
 * `folder:DIR`: writes each job's document into DIR, for shops that hand documents to
 * another program, and for tests and benchmarks. Copies and options do not apply to a
 * file; the document is written once, atomically, so a watcher never sees half a file.
 */
export class FolderBackend implements PrinterBackend {
  async listPrinters(): Promise<PrinterInfo[]> {
    return [];
  }

  async print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    _options: PrintOptions,
  ): Promise<PrintOutcome> {
    if (!isFolderPrinter(printer) || printer.length === folderPrinterPrefix.length) {
      return failure('invalid_printer', `"${printer}" is not a folder printer (folder:DIR)`);
    }
    const dir = resolve(printer.slice(folderPrinterPrefix.length));
    try {
      await mkdir(dir, { recursive: true });
      await writeFileAtomic(join(dir, folderFileName(job)), document, 0o644);
      return { ok: true, printer, spoolerJobId: null };
    } catch (error) {
      return failure('write_failed', `could not write into ${dir}: ${(error as Error).message}`);
    }
  }
}
