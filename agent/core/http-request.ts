import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/**
 * The agent's HTTP client: Node's own `node:http` and `node:https`, nothing else. The agent
 * talks HTTP/1.1 to one server and to CUPS, a few calls at a time; Node's client does that,
 * and loads nothing the agent does not use (an HTTP client library's whole package, or
 * `node:http2`, cost the agent's process ~16 MiB: docs/agent.md, "Footprint").
 */

/** Kept-alive connections to one server (`connections` at most, idle ones closed after `keepAliveMs`). */
export interface Connections {
  readonly agent: HttpAgent;
  /** A connect that takes longer fails with `ConnectTimeoutError`. */
  readonly connectTimeoutMs: number;
  /** Calls under way on these connections. */
  inFlight: number;
  /** Closes the connections once the calls under way have ended. */
  close(): Promise<void>;
}

export function keptAliveConnections(
  url: string | URL,
  options: { connections: number; keepAliveMs: number; connectTimeoutMs: number },
): Connections {
  const secure = new URL(url).protocol === 'https:';
  const settings = {
    keepAlive: true,
    maxSockets: options.connections,
    // Node closes a kept-alive socket idle this long (`timeout` on a kept-alive agent's socket).
    timeout: options.keepAliveMs,
  };
  const agent = secure ? new HttpsAgent(settings) : new HttpAgent(settings);
  const connections: Connections = {
    agent,
    connectTimeoutMs: options.connectTimeoutMs,
    inFlight: 0,
    async close() {
      while (connections.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
      agent.destroy();
    },
  };
  return connections;
}

/** The connection could not be made in time: the request was never sent. */
export class ConnectTimeoutError extends Error {
  readonly code = 'ECONNECT_TIMEOUT';
}

/** No answer's headers, or no byte of its body, within the timeout. */
export class AnswerTimeoutError extends Error {
  readonly code = 'EANSWER_TIMEOUT';
}

export interface HttpCall {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
  /** Milliseconds to the answer's headers, and between two pieces of its body. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Kept-alive connections to use; without, one connection for this call alone. */
  connections?: Connections;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Connect timeout of a call made on a connection of its own. */
const ownConnectTimeoutMs = 10_000;

/**
 * One HTTP call, its whole answer read. Fails with Node's error for what went wrong on the
 * network (`code`: `ECONNREFUSED`, `ECONNRESET`, …), `ConnectTimeoutError`,
 * `AnswerTimeoutError`, or the signal's abort.
 */
export async function httpCall(url: string | URL, call: HttpCall): Promise<HttpAnswer> {
  const connections = call.connections;
  if (connections) connections.inFlight += 1;
  try {
    return await oneCall(new URL(url), call);
  } finally {
    if (connections) connections.inFlight -= 1;
  }
}

function oneCall(target: URL, call: HttpCall): Promise<HttpAnswer> {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const request = send(target, {
      method: call.method ?? 'GET',
      headers: call.headers,
      // No agent: a connection for this call alone, closed after it (`Connection: close`).
      agent: call.connections?.agent ?? false,
      signal: call.signal,
    });
    const timer = setTimeout(
      () => fail(new AnswerTimeoutError(`no answer within ${call.timeoutMs} ms`)),
      call.timeoutMs,
    );
    function fail(error: Error) {
      clearTimeout(timer);
      request.destroy(error);
      reject(error);
    }
    request.once('socket', (socket) => {
      if (!socket.connecting) return;
      const connectTimeoutMs = call.connections?.connectTimeoutMs ?? ownConnectTimeoutMs;
      const connecting = setTimeout(
        () => fail(new ConnectTimeoutError(`no connection within ${connectTimeoutMs} ms`)),
        connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connecting));
      socket.once('close', () => clearTimeout(connecting));
    });
    request.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.once('response', (response) => {
      const chunks: Buffer[] = [];
      timer.refresh();
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        timer.refresh();
      });
      // A connection cut mid-body: Node's `aborted` error (ECONNRESET).
      response.once('error', fail);
      response.once('end', () => {
        clearTimeout(timer);
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        });
      });
    });
    request.end(call.body ?? undefined);
  });
}
