import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve-process.ts';
import { ok, scratchDir } from '../helpers/shopdesk-cli.ts';

/** `shopdesk serve --public-url URL` and `--trust-proxy` reach the links the server writes. */

const dir = scratchDir();

async function createCustomer(url: string, token: string, headers: Record<string, string>) {
  const answer = await fetch(`${url}/api/v1/customers`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ name: 'Ada', type: 'F' }),
  });
  expect(answer.status).toBe(201);
  return answer.headers.get('location');
}

describe('serve --public-url / --trust-proxy', () => {
  it.each([
    [
      ['--public-url', 'https://shop.example.com/'],
      /^https:\/\/shop\.example\.com\/api\/v1\/customers\/\d+$/,
    ],
    [['--trust-proxy'], /^https:\/\/proxied\.example\/api\/v1\/customers\/\d+$/],
    [[], /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/customers\/\d+$/],
  ])(
    '%j: Location %s',
    async (flags, location) => {
      const db = join(dir, `links-${flags.join('')}.sqlite`.replace(/[^\w.-]/g, '_'));
      await ok('company', 'create', '--name', 'Links Co', '--db', db);
      const token = (
        await ok('token', 'create', '--company', '1', '--permissions', '*', '--db', db)
      ).trim();
      const serve = await startServe(['--db', db, ...flags]);
      try {
        const headers = { 'x-forwarded-host': 'proxied.example', 'x-forwarded-proto': 'https' };
        expect(await createCustomer(serve.url, token, headers)).toMatch(location);
      } finally {
        serve.child.kill('SIGTERM');
        await serve.exited;
      }
    },
    60_000,
  );
});
