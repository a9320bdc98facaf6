import type { PrinterCondition } from './direct-condition.ts';
import type { PrinterLink } from './direct-link.ts';

/** The printer languages whose printers say how they are: a direct printer needs one. */
export const statusLanguages = ['escpos', 'starprnt', 'zpl'] as const;
export type StatusLanguage = (typeof statusLanguages)[number];

export function isStatusLanguage(language: string | undefined): language is StatusLanguage {
  return statusLanguages.includes(language as StatusLanguage);
}

/**
 * How one printer language asks a printer for its state and learns that a job printed
 * (escpos-status.ts, starprnt-status.ts, zpl-status.ts). The back-end (direct.ts) owns the
 * link and the order: state, job, confirmation.
 */
export interface StatusDialect {
  readonly language: StatusLanguage;
  /** The state now. Rejects (LinkTimeout) when the printer does not answer in this language. */
  readCondition(link: PrinterLink, timeoutMs: number): Promise<PrinterCondition>;
  /** Sent before the job's bytes (ESC/POS: Automatic Status Back on). */
  readonly beforeJob: Uint8Array;
  /** Sent after the confirmation (ESC/POS: Automatic Status Back off again). */
  readonly afterJob: Uint8Array;
  /**
   * After the job's last byte: resolves with the state once the printer says it printed the
   * job; rejects with NotConfirmed (or LinkClosed) when it does not.
   */
  confirm(link: PrinterLink, timeoutMs: number): Promise<PrinterCondition>;
}

/** The printer did not say it printed the job; `condition` is the last state it gave. */
export class NotConfirmed extends Error {
  readonly condition: PrinterCondition | null;
  constructor(message: string, condition: PrinterCondition | null) {
    super(message);
    this.condition = condition;
  }
}

export function remainingMs(deadline: number): number {
  return Math.max(1, deadline - performance.now());
}
