import { rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRoute } from '../../server/http/route.ts';
import { Router } from '../../server/http/router.ts';
import { type HttpServer, listen } from '../../server/http/server.ts';
import type { Services } from '../../server/services.ts';
import { openStorage } from '../../server/storage/database.ts';
import type { TokenAuthenticator } from '../../server/tokens/authenticate.ts';
import { issueToken, revokeToken } from '../../server/tokens/tokens.ts';
import { type Answer, captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Each row of product.md's "HTTP conventions" status table, through the real pipeline.
 * Every error body is `{success: false, message, ...}`.
 */

function expectError(answer: Answer, status: number, code?: string) {
  expect(answer.status).toBe(status);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.message.length).toBeGreaterThan(0);
  if (code) expect(answer.body.code).toBe(code);
}

const customer = { name: 'Cliente Erro', type: 'F' };

let server: TestServer;
let logs: ReturnType<typeof captureLogs>;
let companyId: number;
let token: string;

beforeAll(async () => {
  logs = captureLogs('trace');
  server = await startTestServer({ log: logs.log });
  companyId = await server.createCompany('Errors Co');
  token = await server.token(companyId, '*');
});
afterAll(() => server.close());

describe('400 Bad Request', () => {
  it.each([
    ['a truncated object', '{"name": "x"'],
    ['a trailing comma', '{"name": "Ana", "type": "F",}'],
    ['single quotes', "{'name': 'Ana'}"],
    ['not JSON at all', 'name=Ana&type=F'],
  ])('malformed JSON (%s)', async (_what, rawBody) => {
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 400, 'malformed_json');
  });

  describe.each(['access_token', 'token', 'api_token', 'api_key'])(
    'a credential in the URL: ?%s=',
    (parameter) => {
      it('is refused with 400, even with a valid header, and its value is never logged', async () => {
        // A real, valid secret: the server must neither use it nor write it down.
        const secret = await server.token(companyId, '*');
        for (const path of [
          `/customers?${parameter}=${secret}`,
          `/customers/1?page=1&${parameter}=${secret}`,
          `/health?${parameter}=${secret}`,
        ]) {
          const withHeader = await server.request('GET', path, { token });
          expectError(withHeader, 400, 'credential_in_url');
          expect(withHeader.body.message).toContain('Authorization');
          const without = await server.request('GET', path);
          expectError(without, 400, 'credential_in_url');
          expect(JSON.stringify(without.body)).not.toContain(secret);
        }
        const posted = await server.request('POST', `/customers?${parameter}=${secret}`, {
          token,
          body: customer,
        });
        expectError(posted, 400, 'credential_in_url');
        expect(logs.text()).toContain('"status":400');
        expect(logs.text()).not.toContain(secret);
      });
    },
  );

  it.each(['ACCESS_TOKEN', 'Api_Key', 'token[]', 'api_token%5B%5D'])(
    'a credential parameter spelled %s is refused too',
    async (parameter) => {
      const answer = await server.request('GET', `/customers?${parameter}=sd_whatever`, { token });
      expectError(answer, 400, 'credential_in_url');
    },
  );

  it('a parameter that only looks alike is not a credential', async () => {
    const answer = await server.request('GET', '/customers?search=token&tokens=1', { token });
    expect(answer.status).toBe(200);
  });

  it('a path with broken percent-encoding is a 400, not a 500', async () => {
    expectError(await server.request('GET', '/customers/%E0%A4%A', { token }), 400);
    expectError(await server.request('GET', '/customers/by-code/%', { token }), 400);
  });
});

describe('401 Unauthorized, always with WWW-Authenticate: Bearer', () => {
  function expect401(answer: Answer) {
    expectError(answer, 401, 'unauthenticated');
    // RFC 9110 §11.6.1 / RFC 6750 §3: a 401 carries the challenge.
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
  }

  it.each([
    ['no Authorization header', undefined],
    ['an unknown token', 'Bearer sd_notARealTokenAtAll'],
    ['an empty bearer', 'Bearer '],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a bare token without scheme', 'sd_abc'],
  ])('%s', async (_what, authorization) => {
    const answer = await server.request('GET', '/customers', {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect401(answer);
    if (authorization !== undefined) {
      // RFC 6750 §3.1: a token that was sent but is not good is `invalid_token`.
      expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('an expired token: good until its day, refused after it', async () => {
    const expiring = await server.token(companyId, ['customers.read'], 1);
    expect((await server.request('GET', '/customers', { token: expiring })).status).toBe(200);
    server.clock.advance(86_400_000 + 1000);
    expect401(await server.request('GET', '/customers', { token: expiring }));
    // Other tokens, with no expiry, still work after the clock moved.
    expect((await server.request('GET', '/customers', { token })).status).toBe(200);
  });

  it('a revoked token, even one the server has already cached', async () => {
    const storage = server.app.services.storage;
    const issued = await issueToken(storage, {
      companyId,
      permissions: ['customers.read'],
      name: 'to revoke',
    });
    expect((await server.request('GET', '/customers', { token: issued.secret })).status).toBe(200);
    // Revoked by another connection to the same file, as `shopdesk token revoke` does.
    const other = openStorage({ kind: 'sqlite', file: server.dbFile });
    try {
      expect(await revokeToken(other, issued.id)).toBe(true);
    } finally {
      await other.close();
    }
    expect401(await server.request('GET', '/customers', { token: issued.secret }));
  });
});

describe('403, 404, 405', () => {
  beforeAll(async () => {
    // Customer 1 exists in this company: the aliases below (1e0, 0x1, 1.0) must not reach it.
    await server.request('POST', '/customers', { token, body: customer });
    expect((await server.request('GET', '/customers/1', { token })).status).toBe(200);
  });

  it('403 names the missing permission', async () => {
    const reader = await server.token(companyId, ['customers.read']);
    const answer = await server.request('POST', '/customers', { token: reader, body: customer });
    expectError(answer, 403, 'forbidden');
    expect(answer.body.message).toContain('customers.create');
  });

  it.each([
    ['an unknown record', '/customers/424242'],
    ['an unknown code', '/customers/by-code/NOPE'],
    ['an unknown path under /api/v1', '/nothing-here'],
    ['an unknown nested path', '/customers/1/nothing'],
    ['an id written as 1e0', '/customers/1e0'],
    ['an id written in hex', '/customers/0x1'],
    ['an id with a decimal point', '/customers/1.0'],
    ['a docs file that is no file', '/docs/constructor'],
    ['a docs file outside the folder', '/docs/..%2F..%2Fpackage.json'],
  ])('404 for %s', async (_what, path) => {
    expectError(await server.request('GET', path, { token }), 404, 'not_found');
  });

  it('404 outside the /api/v1 prefix', async () => {
    const response = await fetch(`${server.url}/customers`);
    expect(response.status).toBe(404);
    expect((await response.json()).success).toBe(false);
  });

  it.each([
    ['DELETE', '/customers', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['PUT', '/customers', ['GET', 'HEAD', 'OPTIONS', 'POST']],
    ['POST', '/health', ['GET', 'HEAD', 'OPTIONS']],
    ['DELETE', '/customers/1', ['GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT']],
    ['GET', '/customers/1/relationships/parent/2', ['DELETE', 'OPTIONS']],
  ])('405 for %s %s, with Allow', async (method, path, allowed) => {
    const answer = await server.request(method, path, { token });
    // RFC 9110 §15.5.6: a 405 MUST carry Allow with the methods the target supports.
    expectError(answer, 405, 'method_not_allowed');
    const allow = answer.headers.get('allow')!.split(/,\s*/).sort();
    expect(allow).toEqual(allowed);
  });
});

describe('413 and 415 on bodies', () => {
  const mib = 1024 * 1024;
  const bigBody = (size: number) => {
    const padding = 'x'.repeat(size - 40);
    return JSON.stringify({ name: 'Grande', type: 'F', code: padding });
  };

  it('413 for a body over 1 MiB with Content-Length', async () => {
    const rawBody = bigBody(mib + 10);
    expect(Buffer.byteLength(rawBody)).toBeGreaterThan(mib);
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 413, 'payload_too_large');
  });

  it('413 for a chunked body that grows over 1 MiB', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/v1/customers',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      chunks: Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 0x20)),
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text).success).toBe(false);
  });

  it('a body just under 1 MiB is read (and validated: 422 on the long code)', async () => {
    const rawBody = bigBody(mib - 100);
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 422, 'validation_failed');
    expect(Object.keys(answer.body.errors)).toEqual(['code']);
  });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['form data', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['no content type', {}],
  ])('415 for a body sent as %s', async (_what, headers: Record<string, string>) => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/v1/customers',
      headers: { authorization: `Bearer ${token}`, ...headers },
      chunks: [Buffer.from(JSON.stringify(customer))],
      contentLength: true,
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.text)).toMatchObject({
      success: false,
      code: 'unsupported_media_type',
    });
  });

  it('application/json with a charset is JSON', async () => {
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody: JSON.stringify(customer),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(answer.status).toBe(201);
  });
});

describe('422', () => {
  it('names the field and carries errors', async () => {
    const answer = await server.request('POST', '/customers', {
      token,
      body: { name: 'Ana', type: 'Q' },
    });
    expectError(answer, 422, 'validation_failed');
    expect(answer.body.errors).toEqual({ type: ['The selected type is invalid.'] });
  });
});

describe('429 over the rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ rateLimit: 3 });
  });
  afterAll(() => limited.close());

  it('counts per token and answers 429 with Retry-After and X-RateLimit-*', async () => {
    const company = await limited.createCompany();
    const first = await limited.token(company, ['customers.read']);
    const second = await limited.token(company, ['customers.read']);
    const remaining: (string | null)[] = [];
    for (let n = 0; n < 3; n++) {
      const answer = await limited.request('GET', '/customers', { token: first });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-ratelimit-limit')).toBe('3');
      remaining.push(answer.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const over = await limited.request('GET', '/customers', { token: first });
    expectError(over, 429, 'rate_limited');
    // RFC 6585 §4 and RFC 9110 §10.2.3: Retry-After in seconds.
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.headers.get('x-ratelimit-limit')).toBe('3');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    // Another token of the same company has its own allowance.
    expect((await limited.request('GET', '/customers', { token: second })).status).toBe(200);
    // Public routes are not counted against anybody.
    expect((await limited.request('GET', '/health')).status).toBe(200);
  });
});

describe('500: a generic message, no stack, details only in the log', () => {
  let http: HttpServer;
  const faultLogs = captureLogs();
  beforeAll(async () => {
    const routes = [
      defineRoute({
        method: 'GET',
        path: '/boom',
        access: 'public',
        operationId: 'boom',
        summary: 'Throws',
        tag: 'Test',
        responses: {},
        handler: () => {
          throw new Error('database password is hunter2 at /srv/secret/path.ts');
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/reject',
        access: 'public',
        operationId: 'reject',
        summary: 'Rejects with a non-Error',
        tag: 'Test',
        responses: {},
        handler: () => Promise.reject('a bare string with hunter2'),
      }),
    ];
    http = await listen(
      {
        router: new Router('/api/v1', routes),
        // Public routes only: nothing here authenticates.
        authenticator: null as unknown as TokenAuthenticator,
        rateLimiter: null,
        services: {} as Services,
        log: faultLogs.log,
      },
      '127.0.0.1',
      0,
    );
  });
  afterAll(() => http.close());

  it.each(['/boom', '/reject'])('GET %s', async (path) => {
    const response = await fetch(`${http.url}/api/v1${path}`, {
      headers: { 'x-request-id': 'fault-1' },
    });
    expect(response.status).toBe(500);
    const text = await response.text();
    const body = JSON.parse(text);
    expect(body).toEqual({
      success: false,
      message: 'Server error. Quote request id fault-1.',
      code: 'internal',
    });
    expect(text).not.toContain('hunter2');
    expect(text).not.toMatch(/\bat \S+:\d+/);
    expect(response.headers.get('x-request-id')).toBe('fault-1');
    // IT finds the cause in the log by the request id.
    expect(faultLogs.text()).toContain('hunter2');
    expect(faultLogs.text()).toContain('"req_id":"fault-1"');
  });

  it('the real server answers 500 when its database is gone under it', async () => {
    const broken = await startTestServer();
    try {
      const secret = await broken.token(await broken.createCompany(), '*');
      await broken.app.services.storage.close();
      const answer = await broken.request('GET', '/customers', { token: secret });
      expectError(answer, 500, 'internal');
      expect(JSON.stringify(answer.body)).not.toMatch(/sqlite|destroyed|stack/i);
    } finally {
      // Its database is closed already: stop the rest, and remove its folder.
      await broken.app.http.close();
      await broken.app.services.printing.stop();
      rmSync(dirname(broken.dbFile), { recursive: true, force: true });
    }
  });
});

describe('X-Request-Id', () => {
  it('is echoed when the client sends a sane one', async () => {
    const answer = await server.request('GET', '/health', {
      headers: { 'x-request-id': 'my-trace.42' },
    });
    expect(answer.headers.get('x-request-id')).toBe('my-trace.42');
  });

  it('is echoed on errors too', async () => {
    const answer = await server.request('GET', '/customers', {
      headers: { 'x-request-id': 'err-7' },
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('x-request-id')).toBe('err-7');
  });

  it.each([
    ['none', undefined],
    ['one with spaces', 'has spaces'],
    ['one too long', 'x'.repeat(65)],
    ['one with a newline-like payload', 'a%0d%0ab'],
  ])('is a fresh UUID when the client sends %s', async (_what, sent) => {
    const answer = await server.request('GET', '/health', {
      headers: sent === undefined ? {} : { 'x-request-id': sent },
    });
    expect(answer.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('the logs', () => {
  it('never contain a token, whatever the request did', async () => {
    const secret = await server.token(companyId, ['customers.read']);
    const unknown = 'sd_thisIsNotAKnownTokenButStillASecret';
    await server.request('GET', '/customers', { token: secret });
    await server.request('POST', '/customers', { token: secret, body: customer });
    await server.request('GET', '/customers/999', { token: secret });
    await server.request('GET', '/customers', { token: unknown });
    await server.request('GET', '/customers?per_page=1000', { token: secret });
    await server.request('POST', '/customers', {
      token,
      rawBody: `{"name": "${secret}"`,
      headers: { 'content-type': 'application/json' },
    });
    const text = logs.text();
    // The requests were logged (the capture works), with the token's id, not its secret.
    expect(text).toContain('"status":403');
    expect(text).toContain('"token_id"');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(unknown);
    expect(text).not.toContain(token);
    expect(text.toLowerCase()).not.toContain('bearer ');
  });
});

/** A request by hand, for what fetch will not send: chunked bodies, no content type. */
function rawRequest(
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
