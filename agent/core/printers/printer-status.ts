import { type PrinterInfo, printerStateReasonSchema } from '../../../shared/printing.ts';

/**
 * What the back-ends share about a printer's state: the fields beside its name, and how raw
 * values from CUPS or Windows become clean contract values (the server refuses anything
 * else, and a refused heartbeat would cost the agent its presence).
 */
export type PrinterStatus = Omit<PrinterInfo, 'name' | 'is_default'>;

export const unknownStatus: PrinterStatus = {
  state: 'unknown',
  reasons: [],
  accepting_jobs: null,
  message: null,
};

/** A printer whose state nobody read (Electron's list before the agent runs). */
export function unknownPrinter(name: string, isDefault = false): PrinterInfo {
  return { name, is_default: isDefault, ...unknownStatus, reasons: [] };
}

/**
 * printer-state-reasons as the contract takes them: lower-case IPP keywords, severity suffix
 * kept, `none` dropped, each once, at most 32; a value that is no keyword is dropped.
 */
export function cleanReasons(values: readonly unknown[] | undefined): string[] {
  const reasons: string[] = [];
  for (const value of values ?? []) {
    if (typeof value !== 'string') continue;
    const reason = value.trim().toLowerCase();
    if (reason === 'none' || reasons.includes(reason)) continue;
    if (printerStateReasonSchema.safeParse(reason).success) reasons.push(reason);
  }
  return reasons.slice(0, 32);
}

/** A state message as the contract takes it: trimmed, control characters out, null if empty. */
export function cleanMessage(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .trim()
    .slice(0, 1023);
  return text === '' ? null : text;
}
