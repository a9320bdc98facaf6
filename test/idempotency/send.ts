import { paulista } from '../customers/payloads.ts';
import type { TestServer } from '../helpers/server.ts';

/** An answer with its body as the exact text sent: replays are compared byte for byte. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path.
  body: any;
}

/** A request with an optional `Idempotency-Key`; the body is sent as given (string) or JSON. */
export async function send(
  server: TestServer,
  method: string,
  path: string,
  options: { token: string; key?: string; body?: unknown; headers?: Record<string, string> },
): Promise<RawAnswer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${options.token}`,
    accept: 'application/json',
    ...options.headers,
  };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${server.api}${path}`, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? JSON.parse(text) : undefined,
  };
}

/** A customer with no code: nothing unique in it, so a second write would succeed too. */
export const customerBody = (name = 'Padaria Idempotente') => ({
  name,
  type: 'J',
  email: 'compras@idempotente.example',
  addresses: [paulista],
});

/** How many customers the company of `token` has. */
export async function customerCount(server: TestServer, token: string): Promise<number> {
  const answer = await send(server, 'GET', '/customers', { token });
  return answer.body.meta.total;
}
