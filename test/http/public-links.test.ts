import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerConfig } from '../../server/config.ts';
import { parsePublicUrl } from '../../server/http/public-origin.ts';
import { dialects } from '../helpers/instances.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Where `Location` and page links point (docs/deploy.md, "Links behind a proxy"): the
 * `--public-url`; else, with `--trust-proxy`, the proxy's X-Forwarded-Proto/Host; else the
 * listening address. Never the request's Host header. Raw requests, to send any Host.
 */

function post(url: string, path: string, token: string, headers: Record<string, string>) {
  return new Promise<{ status: number; location?: string; text: string }>((resolve, reject) => {
    const outgoing = request(
      `${url}/api/v1${path}`,
      {
        method: path.includes('?') ? 'GET' : 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, location: response.headers.location, text }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(path.includes('?') ? undefined : JSON.stringify({ name: 'Ada', type: 'F' }));
  });
}

const spoofed = {
  host: 'evil.example',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
};

describe.each(dialects)('links on %s', (dialect) => {
  let database: FreshDatabase | undefined;
  const servers: TestServer[] = [];
  const start = async (config: Partial<ServerConfig>) => {
    const server = await startTestServer({
      config,
      ...(database && { database: { kind: 'postgres', url: database.url } }),
    });
    servers.push(server);
    const company = await server.createCompany();
    return { server, token: await server.token(company, '*') };
  };

  beforeAll(async () => {
    if (dialect === 'postgres') database = await freshDatabase();
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await database?.drop();
  });

  it('without --public-url or --trust-proxy: the listening address, whatever Host and X-Forwarded-* say', async () => {
    const { server, token } = await start({});
    const created = await post(server.url, '/customers', token, spoofed);
    expect(created.status).toBe(201);
    expect(created.location).toMatch(new RegExp(`^${server.url}/api/v1/customers/\\d+$`));
    const page = await post(server.url, '/customers?per_page=1', token, spoofed);
    expect(page.text).toContain(`"path":"${server.url}/api/v1/customers"`);
    expect(page.text).not.toContain('evil');
  });

  it('with --trust-proxy: X-Forwarded-Proto and X-Forwarded-Host (first value, a host name only)', async () => {
    const { server, token } = await start({ trustProxy: true });
    const created = await post(server.url, '/customers', token, {
      host: 'evil.example',
      'x-forwarded-host': 'shop.example.com, evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(created.location).toMatch(/^https:\/\/shop\.example\.com\/api\/v1\/customers\/\d+$/);
    // Not a host: the listening address instead.
    const odd = await post(server.url, '/customers', token, {
      'x-forwarded-host': 'evil.example/path@x',
      'x-forwarded-proto': 'gopher',
    });
    expect(odd.location).toMatch(new RegExp(`^${server.url}/api/v1/customers/\\d+$`));
  });

  it('with --public-url: that URL (and its path prefix), over every header', async () => {
    const { server, token } = await start({
      publicUrl: parsePublicUrl('https://shop.example.com/shopdesk/'),
      trustProxy: true,
    });
    const created = await post(server.url, '/customers', token, spoofed);
    expect(created.location).toMatch(
      /^https:\/\/shop\.example\.com\/shopdesk\/api\/v1\/customers\/\d+$/,
    );
  });
});

describe('parsePublicUrl (--public-url, SHOPDESK_PUBLIC_URL)', () => {
  it.each([
    ['https://shop.example.com', 'https://shop.example.com'],
    ['https://shop.example.com/', 'https://shop.example.com'],
    ['http://10.0.0.5:8080/shopdesk/', 'http://10.0.0.5:8080/shopdesk'],
  ])('%s → %s', (text, url) => {
    expect(parsePublicUrl(text)).toBe(url);
  });

  it.each([
    'shop.example.com',
    'ftp://shop.example.com',
    'https://shop.example.com/?a=1',
    'https://user:pw@shop.example.com',
  ])('refuses %s', (text) => {
    expect(() => parsePublicUrl(text)).toThrow();
  });
});
