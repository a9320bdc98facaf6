import type {
  PrintableJob,
  PrinterBackend,
  PrintOutcome,
} from '../../../agent/core/printers/backend.ts';
import type { PrinterInfo, PrintOptions } from '../../../shared/printing.ts';

/** A ready printer as a back-end reports it; `overrides` change its state. */
export function readyPrinter(name: string, overrides: Partial<PrinterInfo> = {}): PrinterInfo {
  return {
    name,
    is_default: false,
    state: 'idle',
    reasons: [],
    accepting_jobs: true,
    message: null,
    ...overrides,
  };
}

/**
 * A printer back-end whose prints the test holds and releases, to look at the agent while a
 * job is in the spooler's hands.
 */
export class HeldPrinterBackend implements PrinterBackend {
  readonly prints: Array<{
    job: PrintableJob;
    document: Buffer;
    printer: string;
    options: PrintOptions;
  }> = [];
  private release: (() => void) | null = null;
  private gate: Promise<void> | null = null;
  outcome: (printer: string) => PrintOutcome = (printer) => ({
    ok: true,
    printer,
    spoolerJobId: 'fake-1',
  });

  /** The next prints wait until `releasePrints()`. */
  holdPrints(): void {
    this.gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }

  releasePrints(): void {
    this.release?.();
    this.gate = null;
  }

  /** What listPrinters answers; tests change it to see the runtime report a new state. */
  printers: PrinterInfo[] = [readyPrinter('Fake', { is_default: true })];

  /** How many times the printers were read: the agent's printer watch, seen from here. */
  reads = 0;

  /**
   * `printers`, and each routed `folder:` printer as ready after them, as the agent's own
   * back-ends list a folder (a route whose printer is not listed waits: printer_misconfigured).
   */
  async listPrinters(routed: readonly string[] = []): Promise<PrinterInfo[]> {
    this.reads++;
    const folders = routed
      .filter((name) => name.startsWith('folder:'))
      .filter((name) => !this.printers.some((printer) => printer.name === name))
      .map((name) => readyPrinter(name));
    return structuredClone([...this.printers, ...folders]);
  }

  /** Resolves once the printers have been read `count` more times. */
  async readAgain(count = 1): Promise<void> {
    const target = this.reads + count;
    while (this.reads < target) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  async print(job: PrintableJob, document: Uint8Array, printer: string, options: PrintOptions) {
    this.prints.push({ job, document: Buffer.from(document), printer, options });
    if (this.gate) await this.gate;
    return this.outcome(printer);
  }
}
