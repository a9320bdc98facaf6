import {
  createServer,
  request as forward,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';

/**
 * An HTTP proxy between `shopdesk agent` and the real server, for the faults a network and a
 * server in trouble produce, which the real server cannot be made to produce on cue:
 * answering 503 to everything (as a server whose database is away does), and requests that
 * get no answer (a confirm lost on the way, while the agent is killed).
 */
export interface FaultProxy {
  /** The proxy's origin: give it to the agent as `--server`. */
  url: string;
  /** `forward` passes requests on; `unavailable` answers each one 503 itself. */
  mode: 'forward' | 'unavailable';
  /** Requests matching `match` are held, unanswered; `null` ends that (held ones are dropped). */
  hold(match: ((method: string, path: string) => boolean) | null): void;
  /** How many requests are held now. */
  held(): number;
  /** Every request seen: method, path (without /api/v1) and the status given. */
  requests: Array<{ method: string; path: string; status: number }>;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let match: ((method: string, path: string) => boolean) | null = null;
  const held: Array<{ request: IncomingMessage; response: ServerResponse }> = [];
  const requests: FaultProxy['requests'] = [];

  const server = createServer((request, response) => {
    const method = request.method ?? 'GET';
    const path = (request.url ?? '/').replace(/^\/api\/v1/, '');
    const seen = { method, path, status: 0 };
    requests.push(seen);
    if (proxy.mode === 'unavailable') {
      seen.status = 503;
      response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
      response.end(
        JSON.stringify({
          success: false,
          message: 'The service is unavailable.',
          code: 'unavailable',
        }),
      );
      request.resume();
      return;
    }
    if (match?.(method, path)) {
      held.push({ request, response });
      return;
    }
    const outgoing = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method,
        path: request.url,
        headers: { ...request.headers, host: upstream.host },
      },
      (answer) => {
        seen.status = answer.statusCode ?? 0;
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    outgoing.on('error', () => {
      seen.status = 502;
      response.destroy();
    });
    request.pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');

  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${address.port}`,
    mode: 'forward',
    hold(next) {
      match = next;
      if (next === null) for (const { response } of held.splice(0)) response.destroy();
    },
    held: () => held.filter(({ request }) => !request.destroyed).length,
    requests,
    async close() {
      for (const { response } of held.splice(0)) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
