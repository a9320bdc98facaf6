import type { PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import type { PrintableJob, PrinterBackend, PrintOutcome } from './backend.ts';
import { CupsBackend } from './cups.ts';
import { FolderBackend, isFolderPrinter } from './folder.ts';
import { WindowsBackend } from './windows.ts';

/**
 * The back-end the runtime uses: `folder:DIR` printers go to the folder back-end, every
 * other name to the operating system's spooler.
 */
export class PrinterBackendByName implements PrinterBackend {
  private readonly system: PrinterBackend;
  private readonly folder: PrinterBackend;

  constructor(system: PrinterBackend, folder: PrinterBackend = new FolderBackend()) {
    this.system = system;
    this.folder = folder;
  }

  listPrinters(): Promise<PrinterInfo[]> {
    return this.system.listPrinters();
  }

  print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome> {
    const backend = isFolderPrinter(printer) ? this.folder : this.system;
    return backend.print(job, document, printer, options);
  }
}

export function createSystemBackend(platform: NodeJS.Platform = process.platform): PrinterBackend {
  return platform === 'win32' ? new WindowsBackend() : new CupsBackend();
}

export function createPrinterBackend(platform: NodeJS.Platform = process.platform): PrinterBackend {
  return new PrinterBackendByName(createSystemBackend(platform));
}

export type { PrintableJob, PrinterBackend, PrintOutcome } from './backend.ts';
export { CupsBackend } from './cups.ts';
export { FolderBackend, isFolderPrinter } from './folder.ts';
export { WindowsBackend } from './windows.ts';
