import { createServer, type Server, type Socket } from 'node:net';

/**
 * What every printer simulator shares (escpos.ts, starprnt.ts, zpl.ts): a raw port on
 * 127.0.0.1 (port 0: the system picks), the paper that came out (`printed`, byte for byte),
 * the conditions a test puts it in, and a way to vanish in the middle of a job.
 *
 * Each simulator reads its language's commands from what arrives and puts them in one queue
 * per connection with the bytes to print, in order: real-time requests are answered on
 * arrival, as the printers do; everything else waits its turn, and the queue moves only
 * while the printer can print (paper in, cover closed, online), so an answer queued behind a
 * job (ESC/POS's process ID) comes only once the job's bytes before it are printed.
 */
export interface SimulatedCondition {
  paperEnd: boolean;
  nearEnd: boolean;
  coverOpen: boolean;
  offline: boolean;
  /** An error the printer reports (ESC/POS, StarPRNT: unrecoverable; ZPL: head too hot). */
  error: boolean;
}

export type QueueItem =
  | { kind: 'print'; bytes: Buffer }
  | { kind: 'answer'; bytes: Buffer }
  | { kind: 'run'; run: () => void };

export interface Connection {
  socket: Socket;
  /** Bytes not yet read as commands (a command cut between two reads). */
  pending: Buffer;
  queue: QueueItem[];
  received: number;
  /** A language's own per-connection settings (ASB on or off). */
  settings: Record<string, number>;
}

export abstract class PrinterSimulator {
  readonly condition: SimulatedCondition = {
    paperEnd: false,
    nearEnd: false,
    coverOpen: false,
    offline: false,
    error: false,
  };
  /** What came out of the printer, in order. */
  readonly printed: Buffer[] = [];
  /** Connections accepted so far (a status read is one too). */
  connectionsAccepted = 0;
  /** Once a connection has received this many bytes, the printer drops it (it vanishes). */
  vanishAfterBytes: number | null = null;
  /**
   * As many raw ports do: one connection at a time; another waits, unread, until it closes
   * (the listen backlog).
   */
  oneConnectionAtATime = false;
  /** Connections that had to wait for another to close. */
  connectionsHeld = 0;
  private readonly waiting: Socket[] = [];
  /** After this many bytes printed in all, the paper runs out (mid-job). */
  paperRunsOutAfter: number | null = null;
  protected readonly connections = new Set<Connection>();
  private server: Server | null = null;
  port = 0;

  /** `socket://127.0.0.1:PORT` */
  get url(): string {
    return `socket://127.0.0.1:${this.port}`;
  }

  get printedBytes(): number {
    return this.printed.reduce((sum, chunk) => sum + chunk.length, 0);
  }

  printedBuffer(): Buffer {
    return Buffer.concat(this.printed);
  }

  async start(): Promise<this> {
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.port = address.port;
    this.server = server;
    return this;
  }

  async stop(): Promise<void> {
    for (const socket of this.waiting.splice(0)) socket.destroy();
    for (const connection of this.connections) connection.socket.destroy();
    const server = this.server;
    this.server = null;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** Puts the printer in a condition; each connection hears of it as its language says. */
  set(change: Partial<SimulatedCondition>): void {
    Object.assign(this.condition, change);
    for (const connection of this.connections) {
      this.conditionChanged(connection);
      this.pump(connection);
    }
  }

  /** Whether the printer prints now: paper in, cover closed, online, no error. */
  canPrint(): boolean {
    const { paperEnd, coverOpen, offline, error } = this.condition;
    return !paperEnd && !coverOpen && !offline && !error;
  }

  /** Reads the commands of a connection's pending bytes into its queue (or answers them). */
  protected abstract parse(connection: Connection): void;
  /** A condition changed: a printer with automatic status on says so. */
  protected abstract conditionChanged(connection: Connection): void;

  /** The bytes `from`–`end` of what came in, queued to print (nothing when the run is empty). */
  protected queuePrint(connection: Connection, bytes: Buffer, from: number, end: number): void {
    if (end > from) {
      connection.queue.push({ kind: 'print', bytes: Buffer.from(bytes.subarray(from, end)) });
    }
  }

  protected send(connection: Connection, bytes: Buffer): void {
    if (!connection.socket.destroyed) connection.socket.write(bytes);
  }

  private accept(socket: Socket): void {
    if (this.oneConnectionAtATime && this.connections.size > 0) {
      this.connectionsHeld++;
      socket.pause();
      socket.on('error', () => {});
      this.waiting.push(socket);
      return;
    }
    this.connectionsAccepted++;
    const connection: Connection = {
      socket,
      pending: Buffer.alloc(0),
      queue: [],
      received: 0,
      settings: {},
    };
    this.connections.add(connection);
    socket.on('error', () => {});
    socket.on('close', () => {
      this.connections.delete(connection);
      const next = this.waiting.shift();
      if (next && !next.destroyed) {
        this.accept(next);
        next.resume();
      }
    });
    socket.on('data', (chunk: Buffer) => {
      let bytes = chunk;
      const limit = this.vanishAfterBytes;
      const vanish = limit !== null && connection.received + bytes.length >= limit;
      if (vanish) bytes = bytes.subarray(0, Math.max(0, limit - connection.received));
      connection.received += bytes.length;
      connection.pending = Buffer.concat([connection.pending, bytes]);
      this.parse(connection);
      this.pump(connection);
      if (vanish) {
        // Gone without a word, as a printer switched off mid-job: no FIN, a reset.
        socket.resetAndDestroy();
        this.connections.delete(connection);
      }
    });
    this.connected(connection);
  }

  /** A new connection (StarPRNT printers with ASB on send their status at once). */
  protected connected(_connection: Connection): void {}

  /** Prints and answers what is queued, in order, while the printer can print. */
  protected pump(connection: Connection): void {
    while (connection.queue.length > 0 && this.canPrint()) {
      const item = connection.queue.shift() as QueueItem;
      if (item.kind === 'answer') this.send(connection, item.bytes);
      else if (item.kind === 'run') item.run();
      else this.printBytes(connection, item.bytes);
    }
  }

  private printBytes(connection: Connection, bytes: Buffer): void {
    const limit = this.paperRunsOutAfter;
    if (limit === null || this.printedBytes + bytes.length < limit) {
      this.printed.push(Buffer.from(bytes));
      return;
    }
    const fits = Math.max(0, limit - this.printedBytes);
    if (fits > 0) this.printed.push(Buffer.from(bytes.subarray(0, fits)));
    connection.queue.unshift({ kind: 'print', bytes: Buffer.from(bytes.subarray(fits)) });
    this.paperRunsOutAfter = null;
    this.set({ paperEnd: true });
  }
}

export const bit = (on: boolean, n: number): number => (on ? 1 << n : 0);
