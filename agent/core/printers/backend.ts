import type { ContentType, PrinterInfo, PrintOptions } from '../../../shared/printing.ts';

/** What a back-end needs to know about the job beside its bytes. */
export interface PrintableJob {
  id: number;
  title: string | null;
  content_type: ContentType;
  copies: number;
}

/**
 * What became of one print. Failure is data, not an exception: the runtime reports
 * `code` and `message` to the server as the job's error, so the message is written for the
 * shop person who reads it there.
 */
export type PrintOutcome =
  | { ok: true; printer: string; spoolerJobId: string | null }
  | {
      ok: false;
      code: PrintFailureCode;
      message: string;
      spoolerJobId: string | null;
      /**
       * Whether paper may have come out, where the back-end can tell: `no` when nothing
       * reached the printer (the connection was refused, or the printer said before any byte
       * that it cannot print), so the job may go to another printer without a second copy;
       * `unknown` when bytes were sent and the printer never said it printed them. Absent:
       * the back-end does not say (the spoolers).
       */
      printed?: PrintedWhenFailed;
    };

export type PrintedWhenFailed = 'no' | 'unknown';

export type PrintFailureCode =
  | 'invalid_printer'
  | 'invalid_options'
  | 'spooler_rejected'
  | 'printer_stopped'
  | 'job_aborted'
  | 'job_canceled'
  | 'job_stopped'
  | 'print_timeout'
  | 'write_failed'
  | 'printer_error'
  | 'no_route'
  | 'document_mismatch'
  // Direct printers (printers/direct.ts): nothing was sent, or the printer never confirmed.
  | 'printer_unreachable'
  | 'printer_not_ready'
  | 'print_unconfirmed';

/** One way of getting a document onto paper (or into a folder). */
export interface PrinterBackend {
  /**
   * The printers with their state (docs/agent.md, "Printer states"). `routed` names the
   * printers the routes use: the folder back-end lists them (the system does not); a system
   * back-end that keeps its list of names a while (CUPS) lists them again when one is not on
   * it. `fresh` asks for the system's list as it is now (a person is looking at it).
   */
  listPrinters(routed?: readonly string[], fresh?: boolean): Promise<PrinterInfo[]>;
  /**
   * Why the system's spooler cannot print at all now (`CUPS is not running`), or null. Asked
   * only when a route's printer is missing from the list, the one case it explains.
   */
  spoolerProblem?(): Promise<string | null>;
  print(
    job: PrintableJob,
    document: Uint8Array,
    printer: string,
    options: PrintOptions,
  ): Promise<PrintOutcome>;
}

export function failure(
  code: PrintFailureCode,
  message: string,
  spoolerJobId: string | null = null,
  printed?: PrintedWhenFailed,
): PrintOutcome {
  return { ok: false, code, message, spoolerJobId, ...(printed && { printed }) };
}

/** Control characters would let a title forge extra lines in spooler logs and banners. */
export function plainTitle(job: PrintableJob): string {
  const title = (job.title ?? '').replace(/[\p{Cc}\p{Cf}]/gu, ' ').trim();
  return (title === '' ? `job ${job.id}` : title).slice(0, 255);
}
