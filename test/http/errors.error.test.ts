import { beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../server/time.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import type { Answer } from '../helpers/server.ts';
import { writeFromAnotherThread } from '../helpers/sqlite-other-thread.ts';
import { customer, expectError, loggedServerOfFile } from './error-answers.ts';

/**
 * The refusals before a route runs, through the real pipeline (docs/http.md, pipeline
 * order): 400 (credentials in the URL, broken paths), 401, 403, 404 and 405.
 */

const shop = loggedServerOfFile();

describe('400 Bad Request', () => {
  it.each([
    ['a truncated object', '{"name": "x"'],
    ['a trailing comma', '{"name": "Ana", "type": "F",}'],
    ['single quotes', "{'name': 'Ana'}"],
    ['not JSON at all', 'name=Ana&type=F'],
  ])('malformed JSON (%s)', async (_what, rawBody) => {
    const answer = await shop.server.request('POST', '/customers', {
      token: shop.token,
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
        const secret = await shop.server.token(shop.companyId, '*');
        for (const path of [
          `/customers?${parameter}=${secret}`,
          `/customers/1?page=1&${parameter}=${secret}`,
          `/health?${parameter}=${secret}`,
        ]) {
          const withHeader = await shop.server.request('GET', path, { token: shop.token });
          expectError(withHeader, 400, 'credential_in_url');
          expect(withHeader.body.message).toContain('Authorization');
          const without = await shop.server.request('GET', path);
          expectError(without, 400, 'credential_in_url');
          expect(JSON.stringify(without.body)).not.toContain(secret);
        }
        const posted = await shop.server.request('POST', `/customers?${parameter}=${secret}`, {
          token: shop.token,
          body: customer,
        });
        expectError(posted, 400, 'credential_in_url');
        expect(shop.logs.text()).toContain('"status":400');
        expect(shop.logs.text()).not.toContain(secret);
      });
    },
  );

  it.each(['ACCESS_TOKEN', 'Api_Key', 'token[]', 'api_token%5B%5D'])(
    'a credential parameter spelled %s is refused too',
    async (parameter) => {
      const answer = await shop.server.request('GET', `/customers?${parameter}=sd_whatever`, {
        token: shop.token,
      });
      expectError(answer, 400, 'credential_in_url');
    },
  );

  it('`token` is taken only where a route declares it is none (the CloudPRNT GET and DELETE)', async () => {
    // No printer credentials: the GET and DELETE get as far as asking for them (401), past the
    // credential check; the poll, the same path, declares no such thing and refuses it.
    for (const method of ['GET', 'DELETE'] as const) {
      const taken = await shop.server.request(method, '/cloudprnt?token=7');
      expectError(taken, 401, 'unauthenticated');
      for (const spelled of ['Token=7', 'token[]=7', 'access_token=7']) {
        expectError(
          await shop.server.request(method, `/cloudprnt?${spelled}`),
          400,
          'credential_in_url',
        );
      }
    }
    const poll = await shop.server.request('POST', '/cloudprnt?token=7', {
      body: { statusCode: '200 OK' },
    });
    expectError(poll, 400, 'credential_in_url');
  });

  it('a parameter that only looks alike is not a credential', async () => {
    const answer = await shop.server.request('GET', '/customers?search=token&tokens=1', {
      token: shop.token,
    });
    // Refused as any parameter the route does not declare (422), not as a credential (400).
    expectError(answer, 422, 'validation_failed');
    expect(answer.body.errors).toEqual({ tokens: ['The tokens field is prohibited.'] });
  });

  it('a path with broken percent-encoding is a 400, not a 500', async () => {
    expectError(
      await shop.server.request('GET', '/customers/%E0%A4%A', { token: shop.token }),
      400,
    );
    expectError(
      await shop.server.request('GET', '/customers/by-code/%', { token: shop.token }),
      400,
    );
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
    const answer = await shop.server.request('GET', '/customers', {
      headers: authorization === undefined ? {} : { authorization },
    });
    expect401(answer);
    if (authorization !== undefined) {
      // RFC 6750 §3.1: a token that was sent but is not good is `invalid_token`.
      expect(answer.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
  });

  it('an expired token: good until its day, refused after it', async () => {
    const expiring = await shop.server.token(shop.companyId, ['customers.read'], 1);
    expect((await shop.server.request('GET', '/customers', { token: expiring })).status).toBe(200);
    shop.server.clock.advance(86_400_000 + 1000);
    expect401(await shop.server.request('GET', '/customers', { token: expiring }));
    // Other tokens, with no expiry, still work after the clock moved.
    expect((await shop.server.request('GET', '/customers', { token: shop.token })).status).toBe(
      200,
    );
  });

  it('a revoked token, even one the server has already cached', async () => {
    const storage = shop.server.app.services.storage;
    const issued = await createToken(storage.db, {
      companyId: shop.companyId,
      permissions: ['customers.read'],
      name: 'to revoke',
    });
    expect((await shop.server.request('GET', '/customers', { token: issued.secret })).status).toBe(
      200,
    );
    // Revoked by another connection to the same file, as `shopdesk token revoke` does (its
    // statement, from another thread as the CLI's is from another process: see the helper).
    expect(
      await writeFromAnotherThread(shop.server.dbFile, [
        [
          'update tokens set revoked_at = ? where id = ? and revoked_at is null',
          [isoNow(), issued.id],
        ],
      ]),
    ).toEqual([1]);
    expect401(await shop.server.request('GET', '/customers', { token: issued.secret }));
  });
});

describe('403, 404, 405', () => {
  beforeAll(async () => {
    // Customer 1 exists in this company: the aliases below (1e0, 0x1, 1.0) must not reach it.
    await shop.server.request('POST', '/customers', { token: shop.token, body: customer });
    expect((await shop.server.request('GET', '/customers/1', { token: shop.token })).status).toBe(
      200,
    );
  });

  it('403 names the missing permission', async () => {
    const reader = await shop.server.token(shop.companyId, ['customers.read']);
    const answer = await shop.server.request('POST', '/customers', {
      token: reader,
      body: customer,
    });
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
    expectError(await shop.server.request('GET', path, { token: shop.token }), 404, 'not_found');
  });

  it('404 outside the /api/v1 prefix', async () => {
    const response = await fetch(`${shop.server.url}/customers`);
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
    const answer = await shop.server.request(method, path, { token: shop.token });
    // RFC 9110 §15.5.6: a 405 MUST carry Allow with the methods the target supports.
    expectError(answer, 405, 'method_not_allowed');
    const allow = answer.headers.get('allow')!.split(/,\s*/).sort();
    expect(allow).toEqual(allowed);
  });
});
