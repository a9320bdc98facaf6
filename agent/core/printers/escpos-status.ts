import { fineCondition, type PrinterCondition } from './direct-condition.ts';
import { LinkTimeout, type PrinterLink, type Taker } from './direct-link.ts';
import { NotConfirmed, remainingMs, type StatusDialect } from './status-dialect.ts';

/**
 * ESC/POS (Epson's command reference): how a receipt printer says how it is and that it
 * printed.
 *
 * - `DLE EOT n` (10 04 n), real-time status, answered at once, even while the printer is
 *   offline or its buffer is full, with one byte whose bits 0 and 7 are 0 and bits 1 and 4
 *   are 1 (`0xx1xx10`): n=1 printer (bit 3 offline), n=2 offline cause (bit 2 cover open,
 *   bit 5 stopped by paper end, bit 6 error), n=3 error cause (bit 2 recoverable, bit 3
 *   auto-cutter, bit 5 unrecoverable, bit 6 automatically recoverable error), n=4 roll paper
 *   sensor (bits 2-3 near end, bits 5-6 paper end).
 * - `GS a n` (1D 61 n), Automatic Status Back: the printer sends four bytes at once and at
 *   every change of the statuses n selects; the first is `0xx1xx00` (bit 3 offline, bit 5
 *   cover open), the second the error causes (bits as DLE EOT 3), the third the roll paper
 *   (bits 0-1 near end, bits 2-3 end), the fourth reserved; their bit 4 is 0.
 * - `GS ( H` fn 48 (1D 28 48 06 00 30 30 d1 d2 d3 d4, each d an ASCII digit), transmit the
 *   process ID response: queued behind the job, answered `37 22 d1 d2 d3 d4 00` once the
 *   printer has processed everything before it, which is how a job is confirmed printed.
 *
 * The three answers never share a first byte's pattern, so one reader tells them apart.
 */

const DLE = 0x10;
const EOT = 0x04;
const GS = 0x1d;

export const escposStatusRequest = Buffer.from([
  DLE,
  EOT,
  1,
  DLE,
  EOT,
  2,
  DLE,
  EOT,
  3,
  DLE,
  EOT,
  4,
]);

/** ASB for online/offline (bit 1), errors (bit 2) and the roll paper sensor (bit 3). */
export const escposAsbOn = Buffer.from([GS, 0x61, 0b0000_1110]);
export const escposAsbOff = Buffer.from([GS, 0x61, 0]);

/** `GS ( H` fn 48 with a four-digit process id. */
export function processIdRequest(id: string): Buffer {
  if (!/^\d{4}$/.test(id)) throw new Error(`a process id is four digits, got ${id}`);
  return Buffer.from([GS, 0x28, 0x48, 6, 0, 0x30, 0x30, ...Buffer.from(id, 'ascii')]);
}

export type EscposAnswer =
  | { kind: 'status'; byte: number }
  | { kind: 'asb'; bytes: Buffer }
  | { kind: 'process-id'; id: string };

const bit = (byte: number, n: number) => (byte & (1 << n)) !== 0;

/** One answer from what the printer sent; bytes that are none are skipped. */
export const takeEscposAnswer: Taker<EscposAnswer> = (bytes) => {
  const first = bytes[0] as number;
  if ((first & 0x93) === 0x12) return { used: 1, value: { kind: 'status', byte: first } };
  if ((first & 0x93) === 0x10) {
    if (bytes.length < 4) return null;
    return { used: 4, value: { kind: 'asb', bytes: Buffer.from(bytes.subarray(0, 4)) } };
  }
  if (first === 0x37) {
    if (bytes.length < 2) return null;
    const end = bytes.indexOf(0, 2);
    if (end === -1) return bytes.length > 80 ? { used: 1 } : null;
    if (bytes[1] === 0x22 && end === 6) {
      return { used: 7, value: { kind: 'process-id', id: bytes.toString('ascii', 2, 6) } };
    }
    // Another "header to NUL" answer (GS ( H fn 49, GS I …): not asked for here.
    return { used: end + 1 };
  }
  return { used: 1 };
};

/** The condition from the answers to DLE EOT 1, 2, 3 and 4. */
export function conditionFromRealTime([
  printer,
  offline,
  error,
  paper,
]: number[]): PrinterCondition {
  const errors = errorWords(error ?? 0x12);
  if (bit(offline ?? 0, 6) && errors.length === 0) errors.push('printer error');
  return {
    ...fineCondition,
    offline: bit(printer ?? 0, 3),
    coverOpen: bit(offline ?? 0, 2),
    paperEnd: bit(offline ?? 0, 5) || ((paper ?? 0) & 0b0110_0000) !== 0,
    paperNearEnd: ((paper ?? 0) & 0b0000_1100) !== 0,
    errors,
  };
}

/** The condition from a four-byte Automatic Status Back. */
export function conditionFromAsb(bytes: Buffer): PrinterCondition {
  const [first = 0, second = 0, third = 0] = bytes;
  return {
    ...fineCondition,
    offline: bit(first, 3),
    coverOpen: bit(first, 5),
    paperEnd: (third & 0b1100) !== 0,
    paperNearEnd: (third & 0b0011) !== 0,
    errors: errorWords(second),
  };
}

function errorWords(byte: number): string[] {
  const words: string[] = [];
  if (bit(byte, 2)) words.push('recoverable error');
  if (bit(byte, 3)) words.push('auto-cutter error');
  if (bit(byte, 5)) words.push('unrecoverable error');
  if (bit(byte, 6)) words.push('head too hot');
  return words;
}

async function readRealTime(link: PrinterLink, deadline: number): Promise<PrinterCondition> {
  const answers: number[] = [];
  while (answers.length < 4) {
    const answer = await link.next(takeEscposAnswer, remainingMs(deadline));
    if (answer.kind === 'status') answers.push(answer.byte);
  }
  return conditionFromRealTime(answers);
}

export function escposDialect(nextProcessId: () => string): StatusDialect {
  return {
    language: 'escpos',
    beforeJob: escposAsbOn,
    afterJob: escposAsbOff,
    async readCondition(link, timeoutMs) {
      await link.write(escposStatusRequest);
      return readRealTime(link, performance.now() + timeoutMs);
    },
    async confirm(link, timeoutMs) {
      const id = nextProcessId();
      await link.write(processIdRequest(id));
      const deadline = performance.now() + timeoutMs;
      let last: PrinterCondition | null = null;
      for (;;) {
        let answer: EscposAnswer;
        try {
          answer = await link.next(takeEscposAnswer, remainingMs(deadline));
        } catch (error) {
          if (!(error instanceof LinkTimeout)) throw error;
          throw new NotConfirmed(
            `the printer did not confirm the job (ESC/POS process ID ${id}) within ${timeoutMs} ms`,
            last,
          );
        }
        if (answer.kind === 'asb') last = conditionFromAsb(answer.bytes);
        if (answer.kind === 'process-id' && answer.id === id) {
          await link.write(escposStatusRequest);
          return readRealTime(link, performance.now() + Math.min(timeoutMs, 5000));
        }
      }
    },
  };
}
