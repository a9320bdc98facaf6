import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleRequest, type Pipeline } from './handle-request.ts';

export interface HttpServer {
  server: Server;
  url: string;
  /** Stops accepting, lets in-flight requests finish (long-polls are woken), then closes. */
  close(graceMs?: number): Promise<void>;
}

export async function listen(
  pipeline: Omit<Pipeline, 'shutdown'>,
  host: string,
  port: number,
): Promise<HttpServer> {
  const shutdown = new AbortController();
  const full: Pipeline = { ...pipeline, shutdown: shutdown.signal };
  const server = createServer({ keepAliveTimeout: 65_000, requestTimeout: 120_000 }, (req, res) => {
    void handleRequest(full, req, res);
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
