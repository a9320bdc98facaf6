import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCorsOrigins } from '../../server/http/cors.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** OPTIONS (RFC 9110 §9.3.7), CORS (Fetch standard, "CORS protocol") and GET /api/v1 itself. */

const shopOrigin = 'https://shop.example.com';

function preflight(server: TestServer, path: string, origin: string) {
  return fetch(`${server.api}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
}

describe('OPTIONS, CORS off (the default)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('answers 204 with Allow for a known path, without a token', async () => {
    const answer = await fetch(`${server.api}/customers`, { method: 'OPTIONS' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('allow')!.split(/,\s*/).sort()).toEqual([
      'GET',
      'HEAD',
      'OPTIONS',
      'POST',
    ]);
    expect(await answer.text()).toBe('');
  });

  it('answers 404 for an unknown path', async () => {
    const answer = await fetch(`${server.api}/nothing-here`, { method: 'OPTIONS' });
    expect(answer.status).toBe(404);
  });

  it('grants no origin: a preflight gets Allow but no Access-Control-Allow-Origin', async () => {
    const answer = await preflight(server, '/customers', shopOrigin);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('access-control-allow-methods')).toBeNull();
    const get = await fetch(`${server.api}/health`, { headers: { origin: shopOrigin } });
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('GET /api/v1 answers with links to the docs, the document and health', async () => {
    for (const path of ['', '/']) {
      const answer = await fetch(`${server.api}${path}`);
      expect(answer.status).toBe(200);
      const { data } = await answer.json();
      expect(data.links).toEqual({
        docs: `${server.api}/docs`,
        openapi: `${server.api}/openapi.json`,
        health: `${server.api}/health`,
      });
      for (const link of Object.values(data.links as Record<string, string>)) {
        expect((await fetch(link)).status, link).toBe(200);
      }
    }
  });
});

describe('CORS on for listed origins', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ config: { corsOrigins: [shopOrigin] } });
    token = await server.token(await server.createCompany(), ['customers.read']);
  });
  afterAll(() => server.close());

  it('a preflight from a listed origin is granted the methods and headers', async () => {
    const answer = await preflight(server, '/customers', shopOrigin);
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(shopOrigin);
    expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    const headers = answer.headers.get('access-control-allow-headers')!.toLowerCase();
    expect(headers).toContain('authorization');
    expect(headers).toContain('content-type');
    expect(Number(answer.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  it('a preflight from another origin is not granted', async () => {
    const answer = await preflight(server, '/customers', 'https://evil.example');
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(answer.headers.get('access-control-allow-methods')).toBeNull();
    expect(answer.headers.get('vary')).toBe('Origin');
  });

  it('answers, errors included, carry the origin and expose the headers clients read', async () => {
    const ok = await fetch(`${server.api}/customers`, {
      headers: { origin: shopOrigin, authorization: `Bearer ${token}` },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(shopOrigin);
    expect(ok.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
    const refused = await fetch(`${server.api}/customers`, { headers: { origin: shopOrigin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(shopOrigin);
  });

  it('* grants every origin', async () => {
    const any = await startTestServer({ config: { corsOrigins: ['*'] } });
    try {
      const answer = await preflight(any, '/customers', 'http://localhost:5173');
      expect(answer.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await any.close();
    }
  });
});

describe('parseCorsOrigins (--cors-origin, SHOPDESK_CORS_ORIGIN)', () => {
  it.each([
    ['https://shop.example.com', ['https://shop.example.com']],
    ['https://a.example, http://localhost:5173', ['https://a.example', 'http://localhost:5173']],
    ['*', ['*']],
    ['https://a.example,*', ['*']],
  ])('%s', (list, expected) => {
    expect(parseCorsOrigins(list)).toEqual(expected);
  });

  it.each([
    ['a path', 'https://shop.example.com/app'],
    ['a trailing slash', 'https://shop.example.com/'],
    ['no scheme', 'shop.example.com'],
    ['another scheme', 'ftp://shop.example.com'],
    ['nothing', ' , '],
  ])('refuses %s', (_what, list) => {
    expect(() => parseCorsOrigins(list)).toThrow();
  });
});

describe('in Chromium: a page on another origin calls the API', () => {
  let page: Server;
  let pageOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    page = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>shop</p>');
    });
    await new Promise<void>((done) => page.listen(0, '127.0.0.1', done));
    pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((done) => page?.close(done));
  });

  /** What the page's fetch of POST /customers sees: the status, or the browser's refusal. */
  async function callFromPage(server: TestServer, token: string): Promise<string> {
    const tab = await browser.newPage();
    try {
      await tab.goto(pageOrigin);
      return await tab.evaluate(
        async ({ api, token }) => {
          try {
            const answer = await fetch(`${api}/customers`, {
              method: 'POST',
              headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name: 'From the browser', type: 'F' }),
            });
            return `${answer.status} ${answer.headers.get('location') ? 'location' : ''}`.trim();
          } catch (error) {
            return `refused: ${(error as Error).message}`;
          }
        },
        { api: server.api, token },
      );
    } finally {
      await tab.close();
    }
  }

  it('is refused by the browser while CORS is off', async () => {
    const server = await startTestServer();
    try {
      const token = await server.token(await server.createCompany(), ['customers.create']);
      expect(await callFromPage(server, token)).toMatch(/^refused/);
    } finally {
      await server.close();
    }
  });

  it('creates a customer and reads Location when the origin is listed', async () => {
    const server = await startTestServer({ config: { corsOrigins: [pageOrigin] } });
    try {
      const token = await server.token(await server.createCompany(), ['customers.create']);
      expect(await callFromPage(server, token)).toBe('201 location');
    } finally {
      await server.close();
    }
  });
});
