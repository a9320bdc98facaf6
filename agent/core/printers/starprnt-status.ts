import { canPrint, fineCondition, type PrinterCondition } from './direct-condition.ts';
import { LinkTimeout, type PrinterLink, type Taker } from './direct-link.ts';
import { NotConfirmed, remainingMs, type StatusDialect } from './status-dialect.ts';

/**
 * StarPRNT (Star's command specification, "Automatic Status Back"): a Star printer says how
 * it is in an ASB block.
 *
 * - `ESC RS a n` (1B 1E 61 n) sets when the status is sent; n=1: at every change (and once
 *   when set). `ESC ACK SOH` (1B 06 01) asks for it now, in real time.
 * - The block: header 1 gives its length in bytes, headers included (bits 1-3 and bit 5 as
 *   bit 3 of the count; bit 0 is 1, bits 4 and 7 are 0); header 2 its version; then the
 *   status bytes, whose bits 0, 4 and 7 are 0 (which is how a header is told from them):
 *   status 1 (bit 3 offline, bit 5 cover open), status 2 (bit 3 unrecoverable error, bit 5
 *   auto-cutter error, bit 6 mechanical error), status 3 (bit 3 receive buffer overflow),
 *   status 4 (bit 2 paper near end, bit 3 paper empty), status 5 onwards (not read here).
 *
 * A Star printer has no answer queued behind a job as ESC/POS's process ID is: a job counts
 * as printed when the status read after its last byte shows the printer able to print.
 */

const ESC = 0x1b;
export const starAsbOn = Buffer.from([ESC, 0x1e, 0x61, 1]);
export const starStatusRequest = Buffer.from([ESC, 0x06, 0x01]);

const bit = (byte: number, n: number) => (byte & (1 << n)) !== 0;

/** The length a header 1 byte gives, or null when the byte is no header. */
export function asbLength(header: number): number | null {
  if ((header & 0b1001_0001) !== 0b0000_0001) return null;
  return ((header >> 1) & 0b111) | ((header & 0b0010_0000) >> 2);
}

/** One ASB block from what the printer sent; bytes before a header are skipped. */
export const takeStarAsb: Taker<Buffer> = (bytes) => {
  const length = asbLength(bytes[0] as number);
  if (length === null || length < 7) return { used: 1 };
  if (bytes.length < length) return null;
  return { used: length, value: Buffer.from(bytes.subarray(0, length)) };
};

export function conditionFromStarAsb(block: Buffer): PrinterCondition {
  const [, , status1 = 0, status2 = 0, status3 = 0, status4 = 0] = block;
  const errors: string[] = [];
  if (bit(status2, 3)) errors.push('unrecoverable error');
  if (bit(status2, 5)) errors.push('auto-cutter error');
  if (bit(status2, 6)) errors.push('mechanical error');
  if (bit(status3, 3)) errors.push('receive buffer overflow');
  return {
    ...fineCondition,
    offline: bit(status1, 3),
    coverOpen: bit(status1, 5),
    paperEnd: bit(status4, 3),
    paperNearEnd: bit(status4, 2),
    errors,
  };
}

/** How long after a block the reader waits for a later one (blocks sent at a change come first). */
const quietMs = 50;

/**
 * Asks for the status and reads it: the last block that arrives, since a printer with ASB on
 * (as its memory switch may set it, or beforeJob) also sends one at each change, before the
 * answer to this request.
 */
async function readAsb(link: PrinterLink, timeoutMs: number): Promise<PrinterCondition> {
  await link.write(starStatusRequest);
  let block = await link.next(takeStarAsb, timeoutMs);
  for (;;) {
    try {
      block = await link.next(takeStarAsb, quietMs);
    } catch (error) {
      if (error instanceof LinkTimeout) return conditionFromStarAsb(block);
      throw error;
    }
  }
}

export const starprntDialect: StatusDialect = {
  language: 'starprnt',
  beforeJob: starAsbOn,
  afterJob: Buffer.alloc(0),
  readCondition: readAsb,
  async confirm(link, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    let last: PrinterCondition | null = null;
    for (;;) {
      try {
        // ASB blocks sent on their own (ASB is on during the job) are read first.
        last = await readAsb(link, remainingMs(deadline));
      } catch (error) {
        if (!(error instanceof LinkTimeout)) throw error;
        throw new NotConfirmed(`the printer did not say it printed within ${timeoutMs} ms`, last);
      }
      if (canPrint(last)) return last;
      if (performance.now() >= deadline) {
        throw new NotConfirmed(`the printer did not say it printed within ${timeoutMs} ms`, last);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(500, remainingMs(deadline))));
    }
  },
};
