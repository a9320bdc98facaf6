import type { PrinterInfo, PrintOptions } from '../../../shared/printing.ts';
import type { PrintableJob, PrinterBackend, PrintOutcome } from './backend.ts';
import { CupsBackend } from './cups.ts';
import { DirectBackend, type DirectBackendOptions } from './direct.ts';
import { isDirectPrinter } from './direct-address.ts';
import { FolderBackend, isFolderPrinter } from './folder.ts';
import { WindowsBackend } from './windows.ts';

/**
 * The back-end the runtime uses: `folder:DIR` printers go to the folder back-end, printers
 * reached directly (`socket://…`, `usb://…`) to the direct back-end, every other name to the
 * operating system's spooler.
 */
export class PrinterBackendByName implements PrinterBackend {
  private readonly system: PrinterBackend;
  private readonly folder: PrinterBackend;
  private readonly direct: PrinterBackend;

  constructor(
    system: PrinterBackend,
    folder: PrinterBackend = new FolderBackend(),
    direct: PrinterBackend = new DirectBackend(),
  ) {
    this.system = system;
    this.folder = folder;
    this.direct = direct;
  }

  /** The system's printers, then the folder printers and the direct printers the routes use. */
  async listPrinters(routed: readonly string[] = [], fresh = false): Promise<PrinterInfo[]> {
    const [system, folders, direct] = await Promise.all([
      this.system.listPrinters(
        routed.filter((printer) => !isFolderPrinter(printer) && !isDirectPrinter(printer)),
        fresh,
      ),
      this.folder.listPrinters(routed.filter(isFolderPrinter)),
      this.direct.listPrinters(routed.filter(isDirectPrinter)),
    ]);
    return [...system, ...folders, ...direct];
  }

  async spoolerProblem(): Promise<string | null> {
    return (await this.system.spoolerProblem?.()) ?? null;
  }

  print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome> {
    const backend = isFolderPrinter(printer)
      ? this.folder
      : isDirectPrinter(printer)
        ? this.direct
        : this.system;
    return backend.print(job, document, printer, options);
  }
}

export interface SystemBackendOptions {
  /** How the back-end names its temporary copies (printers/temp-copies.ts). */
  tempPrefix?: string;
  /** A direct printer's route profile language (printers/direct.ts). */
  languageOf?: DirectBackendOptions['languageOf'];
}

export function createSystemBackend(
  platform: NodeJS.Platform = process.platform,
  options: SystemBackendOptions = {},
): PrinterBackend {
  return platform === 'win32' ? new WindowsBackend(options) : new CupsBackend(options);
}

/**
 * How often the runtime reads the printers' state. CUPS answers a local IPP request in a
 * millisecond or two; on Windows each read starts PowerShell, which costs far more.
 */
export function defaultPrinterCheckMs(platform: NodeJS.Platform = process.platform): number {
  return platform === 'win32' ? 15_000 : 5_000;
}

export function createPrinterBackend(
  platform: NodeJS.Platform = process.platform,
  options: SystemBackendOptions = {},
): PrinterBackend {
  const { languageOf, ...system } = options;
  return new PrinterBackendByName(
    createSystemBackend(platform, system),
    new FolderBackend(),
    new DirectBackend({ languageOf }),
  );
}

export type { PrintableJob, PrinterBackend, PrintOutcome } from './backend.ts';
export { CupsBackend } from './cups.ts';
export { DirectBackend } from './direct.ts';
export { isDirectPrinter } from './direct-address.ts';
export { FolderBackend, folderStatus, isFolderPrinter } from './folder.ts';
export { WindowsBackend } from './windows.ts';
