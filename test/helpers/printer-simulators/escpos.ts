import { bit, type Connection, PrinterSimulator } from './simulator.ts';

/**
 * An ESC/POS receipt printer on a raw port, as Epson's command reference describes the
 * commands the agent uses (agent/core/printers/escpos-status.ts says the same from the
 * other side):
 *
 * - `DLE EOT n` (10 04 n, n 1-4), real-time: answered on arrival with one byte `0xx1xx10`:
 *   1 printer (bit 3 offline), 2 offline cause (bit 2 cover open, bit 5 stopped by paper end,
 *   bit 6 error), 3 error cause (bit 5 unrecoverable), 4 roll paper (bits 2-3 near end, bits
 *   5-6 end). The printer is offline while its cover is open or its paper out.
 * - `GS a n` (1D 61 n), in turn: Automatic Status Back on for the statuses n selects (0: off);
 *   on, it sends the four status bytes at once and at every change.
 * - `GS ( H` fn 48 (1D 28 48 06 00 30 30 d1-d4), in turn: `37 22 d1 d2 d3 d4 00` once every
 *   byte before it is printed.
 *
 * Everything else is printed as it is.
 */
export class EscposSimulator extends PrinterSimulator {
  /** The answers to DLE EOT 1-4 as the printer is now. */
  realTimeStatus(n: number): number {
    const { paperEnd, nearEnd, coverOpen, error } = this.condition;
    const offline = this.condition.offline || coverOpen || paperEnd || error;
    const base = 0b0001_0010;
    if (n === 1) return base | bit(offline, 3);
    if (n === 2) return base | bit(coverOpen, 2) | bit(paperEnd, 5) | bit(error, 6);
    if (n === 3) return base | bit(error, 5);
    return base | (nearEnd ? 0b1100 : 0) | (paperEnd ? 0b0110_0000 : 0);
  }

  asbBytes(): Buffer {
    const { paperEnd, nearEnd, coverOpen, error } = this.condition;
    const offline = this.condition.offline || coverOpen || paperEnd || error;
    return Buffer.from([
      0b0001_0000 | bit(offline, 3) | bit(coverOpen, 5),
      bit(error, 5),
      (nearEnd ? 0b0011 : 0) | (paperEnd ? 0b1100 : 0),
      0,
    ]);
  }

  protected parse(connection: Connection): void {
    const bytes = connection.pending;
    let printFrom = 0;
    let at = 0;
    while (at < bytes.length) {
      const byte = bytes[at];
      if (byte !== 0x10 && byte !== 0x1d) {
        at++;
        continue;
      }
      const need = commandLength(bytes, at);
      if (need === 'more') break;
      if (need === 0) {
        at++;
        continue;
      }
      this.queuePrint(connection, bytes, printFrom, at);
      this.command(connection, bytes.subarray(at, at + need));
      at += need;
      printFrom = at;
    }
    this.queuePrint(connection, bytes, printFrom, at);
    connection.pending = Buffer.from(bytes.subarray(at));
  }

  private command(connection: Connection, command: Buffer): void {
    if (command[0] === 0x10) {
      this.send(connection, Buffer.from([this.realTimeStatus(command[2] as number)]));
    } else if (command[1] === 0x61) {
      const n = command[2] as number;
      connection.queue.push({
        kind: 'run',
        run: () => {
          connection.settings.asb = n;
          if (n !== 0) this.send(connection, this.asbBytes());
        },
      });
    } else {
      const id = command.subarray(7, 11);
      connection.queue.push({
        kind: 'answer',
        bytes: Buffer.concat([Buffer.from([0x37, 0x22]), id, Buffer.from([0])]),
      });
    }
  }

  protected conditionChanged(connection: Connection): void {
    if (connection.settings.asb) this.send(connection, this.asbBytes());
  }
}

/**
 * How long the command at `at` is: 0 when it is none the simulator reads (printed as data),
 * 'more' when it is cut off by the end of what has arrived.
 */
function commandLength(bytes: Buffer, at: number): number | 'more' {
  const left = bytes.length - at;
  if (bytes[at] === 0x10) {
    if (left < 3) return 'more';
    const n = bytes[at + 2] as number;
    return bytes[at + 1] === 0x04 && n >= 1 && n <= 4 ? 3 : 0;
  }
  if (left < 2) return 'more';
  if (bytes[at + 1] === 0x61) return left < 3 ? 'more' : 3;
  if (bytes[at + 1] !== 0x28) return 0;
  if (left < 3) return 'more';
  if (bytes[at + 2] !== 0x48) return 0;
  if (left < 5) return 'more';
  const length = (bytes[at + 3] as number) + (bytes[at + 4] as number) * 256;
  if (left < 5 + length) return 'more';
  const isProcessId = length === 6 && bytes[at + 5] === 0x30 && bytes[at + 6] === 0x30;
  return isProcessId ? 5 + length : 0;
}
