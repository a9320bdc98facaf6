import { type Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';

/** A request whose body has not been sent yet: in flight at the server. */
export interface PendingRequest {
  /** Resolves once the server has read the headers (it answered `100 Continue`). */
  accepted: Promise<void>;
  /** Sends the body and ends the request. */
  finish(): void;
  answer: Promise<{ status: number; body: string }>;
}

/**
 * A JSON `POST` sent with `Expect: 100-continue`: the body waits for the server's `100
 * Continue`, which proves the server holds the request, so the test knows it is in flight
 * without sleeping on a guess.
 */
export function pendingRequest(
  url: string,
  path: string,
  token: string,
  body: unknown,
  options: { headers?: Record<string, string>; agent?: Agent } = {},
): PendingRequest {
  const text = JSON.stringify(body);
  const req = httpRequest(`${url}/api/v1${path}`, {
    method: 'POST',
    agent: options.agent,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      expect: '100-continue',
      ...options.headers,
    },
  });
  const accepted = new Promise<void>((done) => req.once('continue', () => done()));
  const answer = new Promise<{ status: number; body: string }>((done, fail) => {
    req.once('response', (response: IncomingMessage) => {
      let received = '';
      response.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      response.on('end', () => done({ status: response.statusCode ?? 0, body: received }));
    });
    req.once('error', fail);
  });
  req.flushHeaders();
  return { accepted, finish: () => req.end(text), answer };
}

/** Whether a new TCP connection to the server's port is refused. */
export function connectionRefused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
}

/** Resolves once the server's listener is closed (it stopped taking connections). */
export async function listenerClosed(url: string): Promise<void> {
  while (!(await connectionRefused(url))) await new Promise((done) => setTimeout(done, 10));
}
