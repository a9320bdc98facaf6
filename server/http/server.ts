import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleRequest, type Pipeline } from './handle-request.ts';

export interface HttpServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (long-polls are woken), then closes. */
  close(graceMs?: number): Promise<void>;
}

export interface BoundServer extends HttpServer {
  /** Starts answering with the pipeline; requests that came in before wait for it. */
  serve(pipeline: Omit<Pipeline, 'shutdown'>): void;
}

/**
 * Takes the port first and answers later (`serve`): a port that is busy, or not ours to use,
 * fails start-up before anything else is touched (the database is neither opened nor created),
 * and no other process can take the port while the rest starts.
 */
export async function bind(host: string, port: number): Promise<BoundServer> {
  const shutdown = new AbortController();
  let full: Pipeline | undefined;
  const early: [IncomingMessage, ServerResponse][] = [];
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, (req, res) => {
    if (full) void handleRequest(full, req, res);
    else early.push([req, res]);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    serve(pipeline) {
      full = { ...pipeline, shutdown: shutdown.signal };
      for (const [req, res] of early.splice(0)) void handleRequest(full, req, res);
    },
    close(graceMs = 10_000) {
      closing ??= new Promise<void>((resolve) => {
        shutdown.abort();
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}

export async function listen(
  pipeline: Omit<Pipeline, 'shutdown'>,
  host: string,
  port: number,
): Promise<HttpServer> {
  const bound = await bind(host, port);
  bound.serve(pipeline);
  return bound;
}
