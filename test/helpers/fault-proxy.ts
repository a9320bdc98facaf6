import {
  createServer,
  request as forward,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy between an agent and the real server, for the faults a network and a server
 * in trouble produce, which the real server cannot be made to produce on cue: answers it
 * would not give (a 500, a 503 with `Retry-After`, a body that is not its own), connections
 * cut without an answer, requests that get no answer at all (a confirm lost on the way),
 * and a server that is gone and comes back on the same address. Everything else passes
 * through to the real server untouched; every request is recorded as it arrived.
 */
export interface FaultProxy {
  /** The proxy's origin: give it to the agent as its server. */
  url: string;
  /** `forward` passes requests on; `unavailable` answers each one 503 itself. */
  mode: 'forward' | 'unavailable';
  /** Every request seen, as it arrived, and the status it got (0 while unanswered). */
  requests: RecordedRequest[];
  /** The next `times` (default 1) requests matching `fault` get its answer instead. */
  addFault(fault: Fault): void;
  /** Requests matching `match` are held, unanswered; `null` ends that (held ones are dropped). */
  hold(match: ((method: string, path: string) => boolean) | null): void;
  /** How many requests are held now. */
  held(): number;
  /** Stops listening and cuts every connection, as a server that went down. */
  goOffline(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

export interface RecordedRequest {
  method: string;
  /** Without the `/api/v1` prefix, query included. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The JSON body, parsed; `undefined` when there was none. */
  body: unknown;
  status: number;
}

export interface Fault {
  method?: string;
  /** Matched against the path without the /api/v1 prefix. */
  path: RegExp;
  /** An HTTP answer, or `drop` to cut the connection without one. */
  status: number | 'drop';
  headers?: Record<string, string>;
  body?: unknown;
  times?: number;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let match: ((method: string, path: string) => boolean) | null = null;
  const held: Array<{ request: IncomingMessage; response: ServerResponse }> = [];
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();

  const answer = (
    response: ServerResponse,
    seen: RecordedRequest,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    seen.status = status;
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const method = request.method ?? 'GET';
      const path = (request.url ?? '/').replace(/^\/api\/v1/, '');
      let body: unknown;
      try {
        body = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
      const seen: RecordedRequest = { method, path, headers: request.headers, body, status: 0 };
      requests.push(seen);
      if (proxy.mode === 'unavailable') {
        return answer(
          response,
          seen,
          503,
          { success: false, message: 'The service is unavailable.', code: 'unavailable' },
          { 'retry-after': '1' },
        );
      }
      const fault = faults.find(
        (candidate) =>
          candidate.path.test(path) &&
          (candidate.method === undefined || candidate.method === method),
      );
      if (fault) {
        fault.times = (fault.times ?? 1) - 1;
        if (fault.times <= 0) faults.splice(faults.indexOf(fault), 1);
        if (fault.status === 'drop') {
          request.socket.destroy();
          return;
        }
        return answer(
          response,
          seen,
          fault.status,
          fault.body ?? { success: false, message: 'injected', code: 'internal' },
          fault.headers,
        );
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
        (upstreamAnswer) => {
          seen.status = upstreamAnswer.statusCode ?? 0;
          response.writeHead(upstreamAnswer.statusCode ?? 502, upstreamAnswer.headers);
          upstreamAnswer.pipe(response);
        },
      );
      outgoing.on('error', () => {
        seen.status = 502;
        response.destroy();
      });
      outgoing.end(raw);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const listen = (port: number) =>
    new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const shut = async () => {
    for (const { response } of held.splice(0)) response.destroy();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  await listen(0);
  const { port } = server.address() as AddressInfo;

  const proxy: FaultProxy = {
    url: `http://127.0.0.1:${port}`,
    mode: 'forward',
    requests,
    addFault: (fault) => faults.push(fault),
    hold(next) {
      match = next;
      if (next === null) for (const { response } of held.splice(0)) response.destroy();
    },
    held: () => held.filter(({ request }) => !request.socket.destroyed).length,
    goOffline: shut,
    comeBack: () => listen(port),
    close: shut,
  };
  return proxy;
}
