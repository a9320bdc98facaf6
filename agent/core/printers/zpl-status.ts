import { canPrint, fineCondition, type PrinterCondition } from './direct-condition.ts';
import { LinkTimeout, type PrinterLink, type Taker } from './direct-link.ts';
import { NotConfirmed, remainingMs, type StatusDialect } from './status-dialect.ts';

/**
 * ZPL (Zebra's programming guide, `~HS` host status return): the printer answers three
 * strings, each `STX … ETX CR LF`, of comma-separated fields:
 *
 * 1. `aaa,b,c,dddd,eee,f,g,h,iii,j,k,l`: b paper out, c pause, eee formats in the receive
 *    buffer, f buffer full, h partial format in progress, j corrupt RAM, k under temperature,
 *    l over temperature;
 * 2. `mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www`: o head up, p ribbon out, q thermal-transfer mode,
 *    uuuuuuuu labels remaining in the batch;
 * 3. `xxxx,y`: password, static RAM.
 *
 * `~` commands act when received, ahead of formats still waiting, so the answer after a job
 * is the printer's state at that moment: the job counts as printed once an answer shows no
 * format waiting or half received, no label left in the batch, and nothing stopping it.
 */

export const zplStatusRequest = Buffer.from('~HS', 'ascii');

const STX = 0x02;
const ETX = 0x03;

export interface HostStatus {
  condition: PrinterCondition;
  formatsInBuffer: number;
  partialFormat: boolean;
  labelsRemaining: number;
}

/** The three strings of one answer; bytes outside a string are skipped. */
export const takeHostStatus: Taker<string[]> = (bytes) => {
  const strings: string[] = [];
  let at = 0;
  while (strings.length < 3) {
    const start = bytes.indexOf(STX, at);
    if (start === -1) return at === 0 ? { used: bytes.length } : null;
    if (strings.length === 0 && start > 0) return { used: start };
    const end = bytes.indexOf(ETX, start + 1);
    if (end === -1) return bytes.length - start > 512 ? { used: start + 1 } : null;
    strings.push(bytes.toString('latin1', start + 1, end));
    at = end + 1;
    while (at < bytes.length && (bytes[at] === 0x0d || bytes[at] === 0x0a)) at++;
  }
  return { used: at, value: strings };
};

export function parseHostStatus(strings: string[]): HostStatus {
  const one = (strings[0] ?? '').split(',');
  const two = (strings[1] ?? '').split(',');
  const flag = (fields: string[], index: number) => fields[index]?.trim() === '1';
  const errors: string[] = [];
  if (flag(one, 9)) errors.push('configuration lost (corrupt RAM)');
  if (flag(one, 10)) errors.push('print head too cold');
  if (flag(one, 11)) errors.push('print head too hot');
  const thermalTransfer = flag(two, 4);
  return {
    condition: {
      ...fineCondition,
      paperEnd: flag(one, 1),
      paused: flag(one, 2),
      coverOpen: flag(two, 2),
      ribbonOut: thermalTransfer && flag(two, 3),
      errors,
    },
    formatsInBuffer: Number(one[4] ?? 0) || 0,
    partialFormat: flag(one, 7),
    labelsRemaining: Number(two[8] ?? 0) || 0,
  };
}

async function readHostStatus(link: PrinterLink, timeoutMs: number): Promise<HostStatus> {
  await link.write(zplStatusRequest);
  return parseHostStatus(await link.next(takeHostStatus, timeoutMs));
}

export const zplDialect: StatusDialect = {
  language: 'zpl',
  beforeJob: Buffer.alloc(0),
  afterJob: Buffer.alloc(0),
  async readCondition(link, timeoutMs) {
    return (await readHostStatus(link, timeoutMs)).condition;
  },
  async confirm(link, timeoutMs) {
    const deadline = performance.now() + timeoutMs;
    let last: PrinterCondition | null = null;
    for (;;) {
      let status: HostStatus;
      try {
        status = await readHostStatus(link, remainingMs(deadline));
      } catch (error) {
        if (!(error instanceof LinkTimeout)) throw error;
        throw new NotConfirmed(`the printer did not say it printed within ${timeoutMs} ms`, last);
      }
      last = status.condition;
      const done =
        status.formatsInBuffer === 0 && !status.partialFormat && status.labelsRemaining === 0;
      if (done && canPrint(status.condition)) return status.condition;
      if (performance.now() >= deadline) {
        const waiting = done ? '' : ` (${status.formatsInBuffer} formats still waiting)`;
        throw new NotConfirmed(
          `the printer did not say it printed within ${timeoutMs} ms${waiting}`,
          last,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, remainingMs(deadline))));
    }
  },
};
