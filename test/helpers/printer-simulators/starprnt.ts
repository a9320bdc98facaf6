import { bit, type Connection, PrinterSimulator } from './simulator.ts';

/**
 * A Star receipt printer in StarPRNT mode on a raw port, as Star's command specification
 * describes its Automatic Status Back (agent/core/printers/starprnt-status.ts reads it):
 *
 * - `ESC ACK SOH` (1B 06 01), real-time: the status block now.
 * - `ESC RS a n` (1B 1E 61 n), in turn: n=1 sends the block at once and at every change;
 *   n=0 stops that.
 * - The block, 9 bytes: header 1 `0x23` (bit 0 set, the count 9 in bits 1-3 and bit 5),
 *   header 2 the version, then status 1 (bit 3 offline, bit 5 cover open), status 2 (bit 3
 *   unrecoverable error), status 3, status 4 (bit 2 paper near end, bit 3 paper empty),
 *   status 5 to 7; bits 0, 4 and 7 of every status byte are 0.
 *
 * Everything else is printed as it is.
 */
export class StarprntSimulator extends PrinterSimulator {
  /** A memory switch with ASB on: a block at every new connection too. */
  asbAtConnect = false;

  asbBlock(): Buffer {
    const { paperEnd, nearEnd, coverOpen, error } = this.condition;
    const offline = this.condition.offline || coverOpen || paperEnd || error;
    return Buffer.from([
      0x23,
      0x02,
      bit(offline, 3) | bit(coverOpen, 5),
      bit(error, 3),
      0,
      bit(nearEnd, 2) | bit(paperEnd, 3),
      0,
      0,
      0,
    ]);
  }

  protected parse(connection: Connection): void {
    const bytes = connection.pending;
    let printFrom = 0;
    let at = 0;
    while (at < bytes.length) {
      if (bytes[at] !== 0x1b) {
        at++;
        continue;
      }
      const left = bytes.length - at;
      if (left < 3) break;
      if (bytes[at + 1] === 0x06 && bytes[at + 2] === 0x01) {
        this.queuePrint(connection, bytes, printFrom, at);
        this.send(connection, this.asbBlock());
        at += 3;
        printFrom = at;
        continue;
      }
      if (bytes[at + 1] === 0x1e && bytes[at + 2] === 0x61) {
        if (left < 4) break;
        this.queuePrint(connection, bytes, printFrom, at);
        const n = bytes[at + 3] as number;
        connection.queue.push({
          kind: 'run',
          run: () => {
            connection.settings.asb = n & 1;
            if (n & 1) this.send(connection, this.asbBlock());
          },
        });
        at += 4;
        printFrom = at;
        continue;
      }
      at++;
    }
    this.queuePrint(connection, bytes, printFrom, at);
    connection.pending = Buffer.from(bytes.subarray(at));
  }

  protected override connected(connection: Connection): void {
    if (this.asbAtConnect) {
      connection.settings.asb = 1;
      this.send(connection, this.asbBlock());
    }
  }

  protected conditionChanged(connection: Connection): void {
    if (connection.settings.asb) this.send(connection, this.asbBlock());
  }
}
