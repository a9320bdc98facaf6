import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineRoute } from '../../server/http/route.ts';
import { Router } from '../../server/http/router.ts';
import { type HttpServer, listen } from '../../server/http/server.ts';
import type { Services } from '../../server/services.ts';
import type { TokenAuthenticator } from '../../server/tokens/authenticate.ts';
import { captureLogs, startTestServer } from '../helpers/server.ts';
import { customer, expectError, loggedServerOfFile } from './error-answers.ts';

/**
 * What a fault shows (docs/http.md): a 500 with a generic message and the request id,
 * details only in the log; X-Request-Id on every answer; no token ever in the log.
 */

const shop = loggedServerOfFile();

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
      defineRoute({
        method: 'GET',
        path: '/database-fault',
        access: 'public',
        operationId: 'databaseFault',
        summary: 'Throws as a driver does, quoting a value',
        tag: 'Test',
        responses: {},
        handler: () => {
          throw Object.assign(new Error('duplicate key value violates unique constraint'), {
            code: '23505',
            table: 'customers',
            constraint: 'customers_taxvat',
            detail: 'Key (taxvat)=(98765432100) already exists.',
          });
        },
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

  it("logs a driver's error code, table and constraint, not the values its detail quotes", async () => {
    const response = await fetch(`${http.url}/api/v1/database-fault`, {
      headers: { 'x-request-id': 'fault-db' },
    });
    expect(response.status).toBe(500);
    const line = faultLogs
      .text()
      .split('\n')
      .find((entry) => entry.includes('"req_id":"fault-db"'))!;
    expect(JSON.parse(line).err).toMatchObject({
      type: 'Error',
      message: 'duplicate key value violates unique constraint',
      code: '23505',
      table: 'customers',
      constraint: 'customers_taxvat',
    });
    expect(line).not.toContain('98765432100');
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
    const answer = await shop.server.request('GET', '/health', {
      headers: { 'x-request-id': 'my-trace.42' },
    });
    expect(answer.headers.get('x-request-id')).toBe('my-trace.42');
  });

  it('is echoed on errors too', async () => {
    const answer = await shop.server.request('GET', '/customers', {
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
    const answer = await shop.server.request('GET', '/health', {
      headers: sent === undefined ? {} : { 'x-request-id': sent },
    });
    expect(answer.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });
});

describe('the logs', () => {
  it('never contain a token, whatever the request did', async () => {
    const secret = await shop.server.token(shop.companyId, ['customers.read']);
    const unknown = 'sd_thisIsNotAKnownTokenButStillASecret';
    await shop.server.request('GET', '/customers', { token: secret });
    await shop.server.request('POST', '/customers', { token: secret, body: customer });
    await shop.server.request('GET', '/customers/999', { token: secret });
    await shop.server.request('GET', '/customers', { token: unknown });
    await shop.server.request('GET', '/customers?per_page=1000', { token: secret });
    await shop.server.request('POST', '/customers', {
      token: shop.token,
      rawBody: `{"name": "${secret}"`,
      headers: { 'content-type': 'application/json' },
    });
    const text = shop.logs.text();
    // The requests were logged (the capture works), with the token's id, not its secret.
    expect(text).toContain('"status":403');
    expect(text).toContain('"token_id"');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(unknown);
    expect(text).not.toContain(shop.token);
    expect(text.toLowerCase()).not.toContain('bearer ');
  });
});
