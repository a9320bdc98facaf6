import type {
  PrintableJob,
  PrinterBackend,
  PrintOutcome,
} from '../../../agent/core/printers/backend.ts';
import type { PrinterInfo, PrintOptions } from '../../../shared/printing.ts';

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

  async listPrinters(): Promise<PrinterInfo[]> {
    return [{ name: 'Fake', is_default: true }];
  }

  async print(job: PrintableJob, document: Uint8Array, printer: string, options: PrintOptions) {
    this.prints.push({ job, document: Buffer.from(document), printer, options });
    if (this.gate) await this.gate;
    return this.outcome(printer);
  }
}
