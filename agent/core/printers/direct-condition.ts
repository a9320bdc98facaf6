import type { PrinterStatus } from './printer-status.ts';

/**
 * What a printer reached directly said about itself, whichever language it said it in
 * (escpos-status.ts, starprnt-status.ts, zpl-status.ts), before it becomes a PrinterInfo
 * state as the spoolers' printers have (`conditionStatus`).
 */
export interface PrinterCondition {
  offline: boolean;
  coverOpen: boolean;
  paperEnd: boolean;
  /** A warning: it still prints. */
  paperNearEnd: boolean;
  /** ZPL: paused from its panel or by a command. */
  paused: boolean;
  /** ZPL: thermal-transfer mode with no ribbon. */
  ribbonOut: boolean;
  /** An error the printer named that stops it (auto-cutter, mechanical, head too hot…). */
  errors: string[];
}

export const fineCondition: PrinterCondition = {
  offline: false,
  coverOpen: false,
  paperEnd: false,
  paperNearEnd: false,
  paused: false,
  ribbonOut: false,
  errors: [],
};

/** Whether a job sent now would print (a near end does not stop it). */
export function canPrint(condition: PrinterCondition): boolean {
  return (
    !condition.offline &&
    !condition.coverOpen &&
    !condition.paperEnd &&
    !condition.paused &&
    !condition.ribbonOut &&
    condition.errors.length === 0
  );
}

/**
 * The state as CUPS would give it (docs/agent.md, "Printer states"), so that
 * printer-readiness.ts reads it the same way: something that must be fixed at the printer
 * (paper, cover, ribbon, an error, paused) is `stopped` with its IPP keyword; offline with no
 * cause it gave is `offline`; paper near its end is a `-report` beside `idle`.
 */
export function conditionStatus(condition: PrinterCondition): PrinterStatus {
  const reasons: string[] = [];
  if (condition.paperEnd) reasons.push('media-empty-error');
  if (condition.coverOpen) reasons.push('cover-open-error');
  if (condition.ribbonOut) reasons.push('marker-supply-empty-error');
  if (condition.paused) reasons.push('paused');
  if (condition.errors.length > 0) reasons.push('other-error');
  const stopped = reasons.length > 0;
  if (condition.offline) reasons.push('offline-report');
  if (condition.paperNearEnd && !condition.paperEnd) reasons.push('media-low-report');
  return {
    state: stopped ? 'stopped' : condition.offline ? 'offline' : 'idle',
    reasons,
    accepting_jobs: null,
    message: condition.errors.length > 0 ? condition.errors.join(', ') : null,
  };
}

/** Why it cannot print, in a few words for a job's error: `out of paper, cover open`. */
export function describeCondition(condition: PrinterCondition): string {
  const words: string[] = [];
  if (condition.paperEnd) words.push('out of paper');
  if (condition.coverOpen) words.push('cover open');
  if (condition.ribbonOut) words.push('ribbon out');
  if (condition.paused) words.push('paused');
  words.push(...condition.errors);
  if (condition.offline && words.length === 0) words.push('offline');
  if (condition.paperNearEnd && !condition.paperEnd) words.push('paper low');
  return words.length === 0 ? 'ready' : words.join(', ');
}
