import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import { captureLogs, type TestServer } from '../helpers/server.ts';
import { openRaw, parseAnswer } from './raw-socket.ts';

/**
 * Smaller edges (docs/http-edge-cases.md): a request without Host, integers in a query
 * string, an e-mail's local part, and personal data in the logged path of an unknown route.
 */
describe.each(databaseKinds)('edge requests on %s', (kind) => {
  let server: TestServer;
  let token: string;
  const logs = captureLogs('info');

  beforeAll(async () => {
    server = await startTestServerOn(kind, { log: logs.log });
    token = await server.token(await server.createCompany('Edge Requests Co'), '*');
  });
  afterAll(() => server?.close());

  it('an HTTP/1.1 request without Host → JSON 400 with X-Request-Id', async () => {
    const raw = await openRaw(server.url);
    raw.socket.write('GET /api/v1/health HTTP/1.1\r\n\r\n');
    const answer = parseAnswer(await raw.waitFor('}'));
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(answer.body).toEqual({
      success: false,
      message: 'The Host header is required (RFC 9112 §3.2).',
      code: 'bad_request',
    });
    raw.socket.destroy();
  });

  it('an HTTP/1.0 request needs no Host', async () => {
    const raw = await openRaw(server.url);
    raw.socket.write('GET /api/v1/health HTTP/1.0\r\n\r\n');
    await raw.closed;
    expect(parseAnswer(raw.received()).status).toBe(200);
  });

  it.each([
    ['/customers?page=0x10', 'page'],
    ['/customers?page=1e3', 'page'],
    ['/customers?per_page=1.0', 'per_page'],
    ['/customers?page=%205', 'page'],
    ['/offers?customer_id=0x10', 'customer_id'],
    ['/offers?customer_id=1e3', 'customer_id'],
  ])('GET %s → 422: an integer in a query is digits only', async (path, field) => {
    const answer = await server.request('GET', path, { token });
    expect(answer.status).toBe(422);
    expect(answer.body.errors[field]).toEqual([
      `The ${field.replaceAll('_', ' ')} field must be an integer.`,
    ]);
  });

  it.each([
    ['/customers?page=2', 200],
    ['/customers?page=-1', 422],
    ['/offers?customer_id=2147483647', 200],
  ])('GET %s → %i', async (path, status) => {
    expect((await server.request('GET', path, { token })).status).toBe(status);
  });

  it('an e-mail whose local part is over 64 characters → 422 (RFC 5321)', async () => {
    const post = (email: string) =>
      server.request('POST', '/customers', {
        token,
        body: { name: 'Ana Souza', type: 'F', email },
      });
    const long = await post(`${'a'.repeat(65)}@example.com`);
    expect(long.status).toBe(422);
    expect(long.body.errors).toEqual({
      email: ['The email field must not have more than 64 characters before the @.'],
    });
    expect((await post(`${'a'.repeat(64)}@example.com`)).status).toBe(201);
    expect((await post('not-an-address')).body.errors.email).toHaveLength(1);
  });

  it.each([
    ['/customer/by-email/ana.souza@example.com', '/api/v1/customer/by-email/***'],
    ['/customer/by-email/ana.souza%40example.com', '/api/v1/customer/by-email/***'],
    ['/customer/ana%40example.com/orders', '/api/v1/customer/***/orders'],
  ])('an e-mail in an unknown path is not logged: GET %s is logged as %s', async (path, logged) => {
    const requestId = `email-${Math.random().toString(36).slice(2)}`;
    const answer = await server.request('GET', path, {
      token,
      headers: { 'x-request-id': requestId },
    });
    expect(answer.status).toBe(404);
    const line = logs
      .text()
      .split('\n')
      .find((entry) => entry.includes(`"req_id":"${requestId}"`))!;
    expect(JSON.parse(line).path).toBe(logged);
    expect(logs.text()).not.toMatch(/ana(\.souza)?(@|%40)example/);
  });
});
