import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP relay between the server and PostgreSQL that the test can cut and restore: the
 * database "goes away" for this server alone (its pooled and LISTEN connections are reset,
 * new ones are reset at once) without stopping the cluster other processes use.
 */
export interface TcpLink {
  /** `url` with its host and port replaced by the relay's. */
  url: string;
  cut(): void;
  restore(): void;
  /**
   * Arms a trap for one statement sent on its own (it commits by itself): on the first
   * connection that sends a message holding one of `markers` (the statement's text, or the
   * name a named statement runs under), the statement is passed on to
   * PostgreSQL (which runs and commits it) and the server's side of that connection is cut at
   * once, so the answer never arrives. The promise resolves once the trap has fired.
   */
  loseAnswer(...markers: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpLink(url: string): Promise<TcpLink> {
  const target = new URL(url);
  const open = new Set<Socket>();
  let cut = false;
  let trap: { markers: string[]; fired: () => void } | undefined;
  const server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    upstream.pipe(client);
    /** Set once the trap has fired here: the statement goes on, its answer does not come back. */
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      if (cutting) {
        upstream.write(chunk);
        if (endsWithSync(chunk)) client.destroy();
        return;
      }
      const text = trap ? chunk.toString('latin1') : '';
      if (trap?.markers.some((marker) => text.includes(marker))) {
        const { fired } = trap;
        trap = undefined;
        cutting = true;
        upstream.unpipe(client);
        upstream.write(chunk);
        // PostgreSQL commits an autocommit statement at its Sync message, which may come in
        // the next chunk: the server's side is cut only once it has passed (or after 200 ms).
        if (endsWithSync(chunk)) client.destroy();
        else setTimeout(() => client.destroy(), 200).unref();
        // PostgreSQL runs the statement and commits; its answer has nowhere to go.
        setTimeout(() => upstream.destroy(), 500).unref();
        fired();
        return;
      }
      upstream.write(chunk);
    });
    client.on('close', () => {
      if (!cutting) upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String(address.port);
  return {
    url: relayed.toString(),
    cut() {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      cut = false;
    },
    loseAnswer(...markers) {
      return new Promise<void>((fired) => {
        trap = { markers, fired };
      });
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Whether a chunk of the frontend's stream ends with a Sync message ('S', length 4). */
function endsWithSync(chunk: Buffer): boolean {
  const end = chunk.length;
  return end >= 5 && chunk[end - 5] === 0x53 && chunk.readInt32BE(end - 4) === 4;
}
