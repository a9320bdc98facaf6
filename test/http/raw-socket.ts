import { connect, type Socket } from 'node:net';

/**
 * A TCP connection to the server driven by hand, for what no HTTP client sends: a body the
 * client never finishes, headers that trickle in, requests the parser must refuse.
 */
export interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far, as text. */
  received(): string;
  /** Resolves when the server has sent `text` (or the connection closed). */
  waitFor(text: string, timeoutMs?: number): Promise<string>;
  /** Resolves with the ms from opening to the connection's end (by either side). */
  closed: Promise<number>;
  /** Bytes this side has managed to write into the connection. */
  written(): number;
}

/**
 * `allowHalfOpen`: the connection stays open for writing when the server has closed its side
 * (a client that goes on sending after the answer); by default it closes, as most clients do.
 */
export async function openRaw(
  origin: string,
  options: { allowHalfOpen?: boolean } = {},
): Promise<RawConnection> {
  const { hostname, port } = new URL(origin);
  const opened = performance.now();
  const socket = connect({
    host: hostname,
    port: Number(port),
    allowHalfOpen: options.allowHalfOpen ?? false,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  const chunks: Buffer[] = [];
  let written = 0;
  // The server may close while this side still writes: that is what some tests look for.
  socket.on('error', () => {});
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise<number>((resolve) =>
    socket.once('close', () => resolve(performance.now() - opened)),
  );
  const originalWrite = socket.write.bind(socket);
  socket.write = ((data: string | Uint8Array, ...rest: never[]) => {
    written += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    return originalWrite(data, ...rest);
  }) as typeof socket.write;
  const received = () => Buffer.concat(chunks).toString('utf8');
  return {
    socket,
    received,
    closed,
    written: () => written,
    async waitFor(text, timeoutMs = 5000) {
      const deadline = performance.now() + timeoutMs;
      while (!received().includes(text) && !socket.destroyed && performance.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received();
    },
  };
}

/** The status, headers (lower-case names) and JSON body of the first answer in `text`. */
export function parseAnswer(text: string): {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the body by path.
  body: any;
} {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = text.slice(end + 4, end + 4 + length);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body ? JSON.parse(body) : undefined,
  };
}
