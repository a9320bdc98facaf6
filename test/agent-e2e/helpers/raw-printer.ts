import { createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP listener standing in for a label printer's port 9100. Each connection's bytes are
 * collected. While `holding`, a new connection is not read at all: a document larger than
 * the socket buffers then keeps CUPS's socket backend blocked mid-write, so the CUPS job stays
 * "processing" — in the spooler's hands for as long as the test wants, whatever the backend
 * does once it has sent everything.
 */
export interface RawPrinter {
  server: Server;
  port: number;
  connections: number;
  received: Buffer[];
  holding: boolean;
  held: Socket[];
  releaseHeld(): void;
}

export async function startRawPrinter(): Promise<RawPrinter> {
  const printer: RawPrinter = {
    server: createServer((socket) => {
      printer.connections++;
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('end', () => {
        printer.received.push(Buffer.concat(chunks));
        socket.end();
      });
      if (printer.holding) {
        socket.pause();
        printer.held.push(socket);
      }
    }),
    port: 0,
    connections: 0,
    received: [],
    holding: false,
    held: [],
    releaseHeld() {
      printer.holding = false;
      for (const socket of printer.held.splice(0)) socket.resume();
    },
  };
  await new Promise<void>((resolve) => printer.server.listen(0, '127.0.0.1', resolve));
  const address = printer.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  printer.port = address.port;
  return printer;
}

/** A label larger than loopback's socket buffers hold while the printer reads nothing. */
export function bigLabel(text: string): Buffer {
  return Buffer.concat([
    Buffer.from(`^XA^FD${text}`, 'latin1'),
    Buffer.alloc(10 * 1024 * 1024, 'x'),
    Buffer.from('^FS^XZ\r\n', 'latin1'),
  ]);
}
