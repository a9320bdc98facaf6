import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect } from 'vitest';
import { type Answer, captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';

/** Every error body is `{success: false, message, code, ...}`, with the status it goes with. */
export function expectError(answer: Answer, status: number, code?: string) {
  expect(answer.status).toBe(status);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  if (code) expect(answer.body.code).toBe(code);
}

/** A request by hand, for what fetch will not send: chunked bodies, no content type. */
export function rawRequest(
  origin: string,
  options: {
    method: string;
    path: string;
    headers: Record<string, string>;
    chunks: Buffer[];
    contentLength?: boolean;
  },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const total = options.chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const req = httpRequest(
      `${origin}${options.path}`,
      {
        method: options.method,
        headers: {
          ...options.headers,
          ...(options.contentLength ? { 'content-length': String(total) } : {}),
        },
        agent: false,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    // The server may answer (413) before it has read everything: that is not a failure.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const chunk of options.chunks) req.write(chunk);
    req.end();
  });
}

/** A customer body the error tests send. */
export const customer = { name: 'Cliente Erro', type: 'F' };

/** A server whose log the test reads, with a company and an all-permissions token. */
export interface LoggedServer {
  server: TestServer;
  logs: ReturnType<typeof captureLogs>;
  companyId: number;
  token: string;
}

/** The file's logged server, started before its tests and closed after them. */
export function loggedServerOfFile(): LoggedServer {
  const shop = {} as LoggedServer;
  beforeAll(async () => {
    shop.logs = captureLogs('trace');
    shop.server = await startTestServer({ log: shop.logs.log });
    shop.companyId = await shop.server.createCompany('Errors Co');
    shop.token = await shop.server.token(shop.companyId, '*');
  });
  afterAll(() => shop.server?.close());
  return shop;
}
