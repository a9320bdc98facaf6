import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ContentType, PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import { writeFileAtomic } from '../atomic-file.ts';
import { failure, type PrintableJob, type PrinterBackend, type PrintOutcome } from './backend.ts';
import { cleanMessage, type PrinterStatus } from './printer-status.ts';

export const folderPrinterPrefix = 'folder:';

const extensions: Record<ContentType, string> = {
  'application/pdf': 'pdf',
  'application/vnd.zebra.zpl': 'zpl',
  'application/vnd.escpos': 'escpos',
  'application/vnd.star.starprnt': 'starprnt',
  'text/plain': 'txt',
  'application/vnd.epson.epos-print+xml': 'xml',
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
  /** The folder printers among `routed`, each with its state: the system lists none of them. */
  async listPrinters(routed: readonly string[] = []): Promise<PrinterInfo[]> {
    const folders = [...new Set(routed)].filter(
      (printer) =>
        isFolderPrinter(printer) &&
        printer.length > folderPrinterPrefix.length &&
        printer.length <= 255,
    );
    return Promise.all(
      folders.map(async (printer) => ({
        name: printer,
        is_default: false,
        ...(await folderStatus(printer.slice(folderPrinterPrefix.length))),
      })),
    );
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

/**
 * `idle` when a job could be written now: DIR is a writable directory, or does not exist yet
 * and its nearest existing parent is one (print creates it). Otherwise `stopped`, with the
 * reason in `message`. The check is access(2) W_OK, which root always passes: as root only a
 * path that is no directory stops the printer.
 */
export async function folderStatus(dir: string): Promise<PrinterStatus> {
  const target = resolve(dir);
  let existing = target;
  for (;;) {
    try {
      const found = await stat(existing);
      if (!found.isDirectory()) {
        return stoppedFolder(`cannot write into ${target}: ${existing} is not a directory`);
      }
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // ENOTDIR: a file further up; walking up finds it and says so.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(existing) === existing) {
        return stoppedFolder(`cannot write into ${target}: ${(error as Error).message}`);
      }
      existing = dirname(existing);
    }
  }
  try {
    await access(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    return stoppedFolder(`cannot write into ${target}: ${(error as Error).message}`);
  }
  return { state: 'idle', reasons: [], accepting_jobs: null, message: null };
}

function stoppedFolder(message: string): PrinterStatus {
  return {
    state: 'stopped',
    reasons: ['other-error'],
    accepting_jobs: null,
    message: cleanMessage(message),
  };
}
