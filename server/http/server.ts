import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { defaultHttpLimits, defaultLingerLimits, type HttpLimits } from '../config.ts';
import { answerClientError } from './client-error.ts';
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
export async function bind(
  host: string,
  port: number,
  log: Logger,
  limits: HttpLimits = defaultHttpLimits,
): Promise<BoundServer> {
  const shutdown = new AbortController();
  let full: Pipeline | undefined;
  const early: [IncomingMessage, ServerResponse][] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (full) handleRequest(full, req, res);
    else early.push([req, res]);
  };
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default), so a slow
      // client would be cut up to 30 s late; a check is a walk over the open connections.
      connectionsCheckingInterval: 1000,
      // A request without `Host` (RFC 9112 §3.2) is refused by the pipeline, in JSON with an
      // X-Request-Id, rather than by Node's bare 400.
      requireHostHeader: false,
    },
    onRequest,
  );
  // `Expect: 100-continue`: Node would send 100 Continue before any check; the pipeline sends
  // it only when it is about to read the body, and answers a refused request at once.
  server.on('checkContinue', onRequest);
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  server.on('clientError', (error, socket) => answerClientError(log, error, socket));
  warnOnDroppedConnections(server, log);
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
      full = {
        ...pipeline,
        shutdown: shutdown.signal,
        linger: limits.linger ?? defaultLingerLimits,
      };
      for (const [req, res] of early.splice(0)) handleRequest(full, req, res);
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
  limits: HttpLimits = defaultHttpLimits,
): Promise<HttpServer> {
  const bound = await bind(host, port, pipeline.log, limits);
  bound.serve(pipeline);
  return bound;
}

/**
 * Past `maxConnections` Node closes new connections at accept, without a word: say so in
 * the log, at most once a minute (a flood must not become a flood of log lines).
 */
function warnOnDroppedConnections(server: Server, log: Logger): void {
  let dropped = 0;
  let warnedAt = 0;
  server.on('drop', () => {
    dropped++;
    const now = Date.now();
    if (now - warnedAt < 60_000) return;
    warnedAt = now;
    log.warn(
      { dropped_since_last_warning: dropped, max_connections: server.maxConnections },
      'connection limit reached: new connections are being closed',
    );
    dropped = 0;
  });
}
