import type { Connection } from './simulator.ts';
import { PrinterSimulator } from './simulator.ts';

/**
 * A Zebra label printer on a raw port, as Zebra's ZPL programming guide describes `~HS`
 * (agent/core/printers/zpl-status.ts reads it):
 *
 * - `~HS`, acted on when received: three strings, each `STX … ETX CR LF`:
 *   `aaa,b,c,dddd,eee,f,g,h,iii,j,k,l` (b paper out, c pause, eee formats in the receive
 *   buffer, h partial format, k under / l over temperature),
 *   `mmm,n,o,p,q,r,s,t,uuuuuuuu,v,www` (o head up, p ribbon out, q thermal transfer,
 *   uuuuuuuu labels remaining), `xxxx,y`.
 * - `^XA … ^XZ`: one label format. A format received waits in the buffer, then prints in
 *   `labelMs` while the printer can print (media in, head down, not paused).
 *
 * The cover of the base simulator is the print head (up: cannot print).
 */
export class ZplSimulator extends PrinterSimulator {
  thermalTransfer = false;
  private pausedNow = false;
  private ribbonOutNow = false;
  /** How long one label takes to print. */
  labelMs = 20;
  /** Called as each format is received (a test pauses the printer there). */
  onFormat: (() => void) | null = null;
  private formatsWaiting = 0;
  private partial = false;
  private printing = false;

  /** Paused from the panel (or by a command); resuming prints what waits. */
  get paused(): boolean {
    return this.pausedNow;
  }
  set paused(paused: boolean) {
    this.pausedNow = paused;
    this.set({});
  }

  /** Out of ribbon (matters in thermal-transfer mode only). */
  get ribbonOut(): boolean {
    return this.ribbonOutNow;
  }
  set ribbonOut(out: boolean) {
    this.ribbonOutNow = out;
    this.set({});
  }

  override canPrint(): boolean {
    return super.canPrint() && !this.paused && !(this.thermalTransfer && this.ribbonOut);
  }

  hostStatus(): Buffer {
    const { paperEnd, coverOpen, error } = this.condition;
    const flag = (on: boolean) => (on ? '1' : '0');
    const one = [
      '030',
      flag(paperEnd),
      flag(this.paused),
      '1218',
      String(this.formatsWaiting).padStart(3, '0'),
      '0',
      '0',
      flag(this.partial),
      '000',
      '0',
      '0',
      flag(error),
    ].join(',');
    const two = [
      '001',
      '0',
      flag(coverOpen),
      flag(this.ribbonOut),
      flag(this.thermalTransfer),
      '2',
      '6',
      '0',
      String(this.formatsWaiting).padStart(8, '0'),
      '1',
      '000',
    ].join(',');
    const frame = (text: string) => `\x02${text}\x03\r\n`;
    return Buffer.from(frame(one) + frame(two) + frame('1234,0'), 'latin1');
  }

  protected parse(connection: Connection): void {
    let text = connection.pending.toString('latin1');
    for (;;) {
      const status = text.indexOf('~HS');
      const start = text.indexOf('^XA');
      if (status !== -1 && (start === -1 || status < start)) {
        this.send(connection, this.hostStatus());
        text = text.slice(0, status) + text.slice(status + 3);
        continue;
      }
      if (start === -1) {
        // Keep a cut "~H" or "^X" for the next read; anything else outside a format is ignored.
        const tail = text.slice(-2);
        text =
          tail.startsWith('~') || tail.startsWith('^')
            ? tail
            : text.endsWith('~') || text.endsWith('^')
              ? text.slice(-1)
              : '';
        break;
      }
      const end = text.indexOf('^XZ', start);
      const inside = text.slice(start, end === -1 ? undefined : end);
      const statusInside = inside.indexOf('~HS');
      if (statusInside !== -1) {
        // `~` commands act even in the middle of a format.
        this.send(connection, this.hostStatus());
        text = text.slice(0, start + statusInside) + text.slice(start + statusInside + 3);
        continue;
      }
      if (end === -1) {
        this.partial = true;
        text = text.slice(start);
        break;
      }
      const format = Buffer.from(text.slice(start, end + 3), 'latin1');
      this.partial = false;
      this.formatsWaiting++;
      this.onFormat?.();
      connection.queue.push({ kind: 'run', run: () => this.printLabel(format) });
      text = text.slice(end + 3);
    }
    connection.pending = Buffer.from(text, 'latin1');
  }

  private printLabel(format: Buffer): void {
    this.printing = true;
    setTimeout(() => {
      this.printed.push(format);
      this.formatsWaiting--;
      this.printing = false;
      for (const connection of this.connections) this.pump(connection);
    }, this.labelMs);
  }

  protected override pump(connection: Connection): void {
    if (this.printing) return;
    if (connection.queue.length === 0 || !this.canPrint()) return;
    const item = connection.queue.shift();
    if (item?.kind === 'run') item.run();
  }

  protected conditionChanged(_connection: Connection): void {}
}
