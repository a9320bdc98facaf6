import type { PrinterInfo } from '../../shared/printing.ts';

/**
 * Whether a printer can take a job now, and how to say what is wrong in a few words. Pure and
 * free of zod and Electron: the runtime's log lines, the tray and the window (bundled for the
 * browser) say it the same way.
 */

export type ReasonSeverity = 'report' | 'warning' | 'error';

const severitySuffix = /-(report|warning|error)$/;

/** `media-empty-error` → `media-empty`: the keyword without its severity suffix. */
export function reasonKeyword(reason: string): string {
  return reason.replace(severitySuffix, '');
}

/** RFC 8011 §5.4.12: a keyword without a suffix is an error. */
export function reasonSeverity(reason: string): ReasonSeverity {
  return (severitySuffix.exec(reason)?.[1] as ReasonSeverity | undefined) ?? 'error';
}

export type Readiness = 'ready' | 'not-ready' | 'unknown';

/**
 * Not ready: the queue is stopped, the printer offline, or the queue refuses new jobs.
 * Reasons alone do not make a printer not ready: CUPS reports some without a suffix (which
 * reads as an error) while it prints normally, e.g. `cups-waiting-for-job-completed`.
 */
export function printerReadiness(printer: PrinterInfo): Readiness {
  if (printer.accepting_jobs === false) return 'not-ready';
  if (printer.state === 'stopped' || printer.state === 'offline') return 'not-ready';
  if (printer.state === 'unknown') return 'unknown';
  return 'ready';
}

/** Words for shop staff for the common keywords; others are shown as they are. */
const reasonWords: Record<string, string> = {
  'media-empty': 'out of paper',
  'media-needed': 'load paper',
  'media-low': 'paper low',
  'media-jam': 'paper jam',
  'door-open': 'door open',
  'cover-open': 'cover open',
  'toner-empty': 'out of toner',
  'toner-low': 'toner low',
  'marker-supply-empty': 'out of ink',
  'marker-supply-low': 'ink low',
  'output-area-full': 'output tray full',
  'interpreter-resource-unavailable': 'out of memory',
  'connecting-to-device': 'connecting',
  'timed-out': 'not answering',
  shutdown: 'shutting down',
  paused: 'paused',
  offline: 'offline',
  other: 'printer error',
};

/**
 * A printer's state in a few words, for a log line, a tooltip or a banner:
 * `stopped, paused: Paper out`, `not accepting jobs`, `offline`.
 */
export function describePrinterState(printer: PrinterInfo): string {
  const parts: string[] = [];
  if (printer.state !== 'idle' && printer.state !== 'unknown') parts.push(printer.state);
  if (printer.accepting_jobs === false) parts.push('not accepting jobs');
  for (const reason of printer.reasons) {
    const keyword = reasonKeyword(reason);
    const words = reasonWords[keyword] ?? reason;
    if (!parts.includes(words)) parts.push(words);
  }
  if (parts.length === 0) parts.push(printer.state);
  const text = parts.slice(0, 4).join(', ');
  return printer.message ? `${text}: ${printer.message}` : text;
}

/** Why a route's printer is not ready: its state, or that the system does not list it. */
export function describeNotReady(entry: { printer: PrinterInfo; listed: boolean }): string {
  return entry.listed ? describePrinterState(entry.printer) : 'not found on this computer';
}
