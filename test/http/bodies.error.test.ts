import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectError, rawRequest } from './error-answers.ts';

/**
 * Refused bodies and callers over their quota, through the real pipeline (docs/http.md):
 * 413 and 415, 422, 429.
 */

const customer = { name: 'Cliente Erro', type: 'F' };

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token(await server.createCompany('Bodies Co'), '*');
});
afterAll(() => server.close());

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

  it.each([
    ['iso-8859-1', 'application/json; charset=iso-8859-1'],
    ['a quoted windows-1252', 'application/json; charset="windows-1252"'],
    ['utf-16', 'application/json;charset=UTF-16'],
  ])('415 for JSON that declares the charset %s', async (_what, type) => {
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody: JSON.stringify(customer),
      headers: { 'content-type': type },
    });
    expectError(answer, 415, 'unsupported_media_type');
    expect(answer.body.message).toMatch(
      /^The request body must be UTF-8 JSON; charset=[\w-]+ is not supported\.$/,
    );
  });

  it.each(['utf-8', 'UTF8', '"utf-8"'])('charset=%s is UTF-8', async (charset) => {
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody: JSON.stringify({ ...customer, name: `Cliente ${charset}` }),
      headers: { 'content-type': `application/json; charset=${charset}` },
    });
    expect(answer.status).toBe(201);
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
