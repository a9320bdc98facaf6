import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../server/config.ts';
import { consoleUser, ensureConsoleBuilt, signIn } from '../helpers/console.ts';
import { type DatabaseKind, databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

/**
 * CSRF by credential, not by header (docs/console.md, "Security, for IT"): whenever the
 * session cookie is what a change carries, its `Origin` must be this server's, scheme,
 * host and port (RFC 6454 §5); and an `Authorization` header that holds no bearer token is
 * a 401, never a request the cookie authenticates. Behind a proxy that asks for an HTTP
 * Basic password the browser attaches that header by itself, as it attaches the cookie: a
 * same-site page revoked a token with a plain form POST that way.
 */
describe.each(databaseKinds)('CSRF by credential on %s', (kind: DatabaseKind) => {
  let server: TestServer;
  let cookie: string;

  beforeAll(async () => {
    await ensureConsoleBuilt();
    server = await startTestServerOn(kind);
    const company = await server.createCompany('Csrf Co');
    cookie = await signIn(server, await consoleUser(server, company, 'owner'));
  });
  afterAll(() => server?.close());

  /** A token the page made, its id and secret. */
  const makeToken = async () => {
    const answer = await server.request('POST', '/console/tokens', {
      headers: { cookie, origin: server.url },
      body: { name: 'till', permissions: ['printing.jobs.read'] },
    });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: number; secret: string };
  };

  /** What a form on another page posts: the cookie and whatever else the browser adds. */
  const formPost = (path: string, headers: Record<string, string>) =>
    server.send('POST', path, {
      cookie,
      'content-type': 'application/x-www-form-urlencoded',
      ...headers,
    });

  const stillWorks = async (token: { secret: string }) =>
    (await server.request('GET', '/printing/history', { token: token.secret })).status;

  it.each([
    ['HTTP Basic (a proxy’s password)', 'Basic dXNlcjpwYXNz'],
    ['Bearer without a token', 'Bearer'],
    ['an empty Authorization', ''],
  ])(
    'a form from another site with %s: refused, the token untouched',
    async (_what, authorization) => {
      const token = await makeToken();
      const path = `/console/tokens/${token.id}/revoke`;
      // Another site, and a same-site page on another port.
      for (const origin of ['https://evil.example', server.url.replace(/:\d+$/, ':1')]) {
        const answer = await formPost(path, { authorization, origin });
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.text).message).toMatch(
          /^This request must come from a page of this server: its Origin/,
        );
      }
      // No Origin at all: refused the same way.
      expect((await formPost(path, { authorization })).status).toBe(403);
      // From the server's own page, such a header is a 401: the cookie is not read.
      const own = await formPost(path, { authorization, origin: server.url });
      expect(own.status).toBe(401);
      expect(own.headers.get('www-authenticate')).toBe(
        'Bearer realm="shopdesk", error="invalid_token"',
      );
      expect(JSON.parse(own.text).message).toMatch(
        /^The Authorization header holds no bearer token/,
      );
      // Signing in with such a header says at once why the console cannot work.
      const signIn = await server.request('POST', '/console/session', {
        headers: { authorization, origin: server.url },
        body: { email: 'someone@shop.example', password: 'whatever it is' },
      });
      expect(signIn.status).toBe(401);
      expect(signIn.body.message).toMatch(/^This browser sends an Authorization header/);
      // Nor on a read: the cookie never answers for a request with another credential.
      const read = await server.send('GET', '/console/tokens', { cookie, authorization });
      expect(read.status).toBe(401);
      expect(await stillWorks(token)).toBe(200);
    },
  );

  it('the same form without any Authorization, from another site: refused; from its own page: done', async () => {
    const token = await makeToken();
    const path = `/console/tokens/${token.id}/revoke`;
    expect((await formPost(path, { origin: 'https://evil.example' })).status).toBe(403);
    expect(await stillWorks(token)).toBe(200);
    expect((await formPost(path, { origin: server.url })).status).toBe(204);
    expect(await stillWorks(token)).toBe(401);
  });

  it('a program with a bearer token is not asked for an Origin', async () => {
    const owner = await server.token(await server.createCompany('Program Co'), '*');
    const answer = await server.request('POST', '/printing/enrollments', {
      token: owner,
      headers: { origin: 'https://integrator.example' },
      body: {},
    });
    expect(answer.status).toBe(201);
  });
});

/** The scheme counts: a page on http:// may not change anything on a server reached by https://. */
describe('the Origin’s scheme', () => {
  const shopOnHttps = async (config: Partial<ServerConfig>, headers: Record<string, string>) => {
    const server = await startTestServerOn('sqlite', { config });
    const company = await server.createCompany('Tls Co');
    const user = await consoleUser(server, company, 'owner');
    const signedIn = await server.request('POST', '/console/session', {
      headers: { ...headers, origin: 'https://shop.example' },
      body: { email: user.email, password: user.password },
    });
    expect(signedIn.status).toBe(200);
    const cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    const post = (origin: string) =>
      server.request('POST', '/console/tokens', {
        headers: { ...headers, cookie, origin },
        body: { name: 'till', permissions: ['printing.jobs.read'] },
      });
    return { server, post };
  };

  it.each([
    ['--public-url https://shop.example', { publicUrl: 'https://shop.example' }, {}],
    [
      '--trust-proxy, the proxy saying https',
      { trustProxy: true },
      { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'shop.example' },
    ],
  ] as [string, Partial<ServerConfig>, Record<string, string>][])(
    'with %s: an http:// origin is refused, https:// taken',
    async (_what, config, headers) => {
      const { server, post } = await shopOnHttps(config, headers);
      try {
        for (const origin of [
          'http://shop.example',
          'https://shop.example:8443',
          'https://evil.example',
        ]) {
          const refused = await post(origin);
          expect(refused.status).toBe(403);
        }
        const plain = await post('http://shop.example');
        expect(plain.body.message).toContain(
          "its Origin http://shop.example is not this server's address (https://shop.example",
        );
        expect((await post('https://shop.example')).status).toBe(201);
        // The default port written out is the same origin.
        expect((await post('https://shop.example:443')).status).toBe(201);
        const tokens = await server.app.services.storage.db
          .selectFrom('tokens')
          .select('id')
          .execute();
        expect(tokens).toHaveLength(2);
      } finally {
        await server.close();
      }
    },
  );

  it('without --public-url or --trust-proxy, a page on https:// behind a proxy is told what to set', async () => {
    const server = await startTestServerOn('sqlite');
    try {
      const company = await server.createCompany('Proxy Co');
      const user = await consoleUser(server, company, 'owner');
      const host = server.url.slice('http://'.length);
      const answer = await server.request('POST', '/console/session', {
        headers: { origin: `https://${host}` },
        body: { email: user.email, password: user.password },
      });
      expect(answer.status).toBe(403);
      expect(answer.body.message).toContain('start the server with --public-url or --trust-proxy');
    } finally {
      await server.close();
    }
  });
});
