import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import {
  listenApplicationName,
  openStorage,
  pooledApplicationName,
} from '../../server/storage/database.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { permissions } from '../../shared/permissions.ts';
import { adminUrl, type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startServe } from '../helpers/serve-process.ts';
import { captureLogs, startTestServer, testSecretKey } from '../helpers/server.ts';
import { customerBody } from '../idempotency/send.ts';

/**
 * One PostgreSQL pool per instance (docs/deploy.md): the store's queries and the four rate
 * limits (the API's per token, enrolment tries per address, console sign-in tries per account
 * and per address) share it, sized by `--pg-pool-size`; beside it only one LISTEN connection,
 * whose channels serve the print queue, webhooks and the token cache. Counted from
 * `pg_stat_activity` while requests pass through every limit, the token cache and the
 * webhooks' endpoints, and write through the store, many at once.
 */

// Real `shopdesk serve` processes, started one after the other on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });
const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function database(): Promise<FreshDatabase> {
  const fresh = await freshDatabase({ migrated: true });
  databases.push(fresh);
  return fresh;
}

interface Census {
  /** Every connection to the instance's database (the test's own go to another one). */
  total: number;
  pooled: number;
  listening: number;
}

/** The connections to `url`'s database now, by the name the instance gives them. */
async function census(admin: pg.Client, url: string): Promise<Census> {
  const name = new URL(url).pathname.slice(1);
  const { rows } = await admin.query<{ application_name: string; n: number }>(
    `select application_name, count(*)::int as n from pg_stat_activity
      where datname = $1 group by application_name`,
    [name],
  );
  const of = (application: string) =>
    rows.find((row) => row.application_name === application)?.n ?? 0;
  return {
    total: rows.reduce((sum, row) => sum + row.n, 0),
    pooled: of(pooledApplicationName),
    listening: of(listenApplicationName),
  };
}

/**
 * Runs `load` while sampling the census every few milliseconds; the most seen of each, and
 * the census once the load is done (the pool keeps idle connections for 10 s).
 */
async function busiest(url: string, load: () => Promise<void>): Promise<Census> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const most: Census = { total: 0, pooled: 0, listening: 0 };
    const note = (seen: Census) => {
      most.total = Math.max(most.total, seen.total);
      most.pooled = Math.max(most.pooled, seen.pooled);
      most.listening = Math.max(most.listening, seen.listening);
    };
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        note(await census(admin, url));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await load();
    } finally {
      loading = false;
      await sampler;
    }
    note(await census(admin, url));
    return most;
  } finally {
    await admin.end();
  }
}

type Send = (
  method: string,
  path: string,
  body?: unknown,
  token?: string,
) => Promise<{ status: number; body: { code?: string } }>;

/**
 * Through every limit, then 40 at a time through the store: each limit is taken once (a
 * wrong sign-in, a wrong enrolment code: refused after they are counted), then customers
 * are created and read on one token.
 */
async function throughEveryLimit(send: Send, token: string): Promise<void> {
  expect((await send('GET', '/me', undefined, token)).status).toBe(200);
  const signIn = await send('POST', '/console/session', {
    email: 'nobody@shop.example',
    password: 'not the password',
  });
  expect(signIn.status).toBe(401);
  const enrol = await send('POST', '/printing/enroll', {
    code: 'ABCD-EFGH-JKLM',
    uuid: '9c3f1e52-4b7a-4d2e-8f61-0a1b2c3d4e5f',
    hostname: 'till-1',
  });
  expect(enrol.status).toBe(422);
  // An endpoint of webhooks: its change is announced on the webhooks' channel.
  const endpoint = await send(
    'POST',
    '/webhooks',
    { url: 'https://93.184.216.34/hooks', events: ['stock.changed'] },
    token,
  );
  expect(endpoint.status).toBe(201);
  await Promise.all(
    Array.from({ length: 40 }, async (_, i) => {
      const created = await send('POST', '/customers', customerBody(`Customer ${i}`), token);
      expect(created.status).toBe(201);
      expect((await send('GET', '/customers?per_page=5', undefined, token)).status).toBe(200);
    }),
  );
}

/**
 * The rate limits' counters: one row for each of the four limits, so all were counted there,
 * in an unlogged table.
 */
async function expectCountedInPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, application_name: 'test' });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string }>('select key from rate_limits');
    const keys = rows.map((row) => row.key).join('\n');
    expect(keys).toMatch(/signin:address:/);
    expect(keys).toMatch(/signin:account:nobody@shop\.example/);
    expect(keys).toMatch(/enrollment:/);
    // The API's count per token is keyed by the token's id, a number.
    expect(keys).toMatch(/:\d+$/m);
    // Unlogged: its writes wait for no WAL flush (docs/scale-out.md).
    const table = await client.query<{ relpersistence: string }>(
      "select relpersistence from pg_class where oid = 'rate_limits'::regclass",
    );
    expect(table.rows[0]?.relpersistence).toBe('u');
  } finally {
    await client.end();
  }
}

describe('one PostgreSQL pool per instance, shared by the store and the rate limits', () => {
  it('an instance holds at most its pool size plus one LISTEN connection, and fills the pool', async () => {
    const fresh = await database();
    const server = await startTestServer({
      database: { kind: 'postgres', url: fresh.url },
      rateLimit: 10_000,
      config: { pgPoolSize: 3, rateLimitStoreTimeoutMs: 60_000 },
    });
    try {
      const token = await server.token(await server.createCompany(), '*');
      const send: Send = (method, path, body, bearer) =>
        server.request(method, path, { body, token: bearer });
      const most = await busiest(fresh.url, () => throughEveryLimit(send, token));
      // 40 requests at once need more than 3 connections: the pool is full, and no more.
      expect(most.pooled).toBe(3);
      expect(most.listening).toBe(1);
      expect(most.total).toBeLessThanOrEqual(3 + 1);
      await expectCountedInPostgres(fresh.url);
    } finally {
      await server.close();
    }
  });

  it('`shopdesk serve --pg-pool-size 2` pools 2 connections; without the flag, at most 10', async () => {
    const fresh = await database();
    const storage = openStorage({ kind: 'postgres', url: fresh.url }, { pgPoolSize: 1 });
    let token: string;
    try {
      const companyId = await createCompany(storage.db, 'Pool Shop');
      token = (
        await createToken(storage.db, { companyId, permissions: [...permissions], name: 'pool' })
      ).secret;
    } finally {
      await storage.close();
    }
    for (const [flags, size] of [
      [['--pg-pool-size', '2'], 2],
      [[], 10],
    ] as const) {
      const serve = await startServe(
        ['--database-url', fresh.url, '--rate-limit', '10000', ...flags],
        {
          SHOPDESK_SECRET_KEY: testSecretKey,
        },
      );
      try {
        const send: Send = async (method, path, body, bearer) => {
          const response = await fetch(`${serve.url}/api/v1${path}`, {
            method,
            headers: {
              accept: 'application/json',
              ...(body !== undefined && { 'content-type': 'application/json' }),
              ...(bearer && { authorization: `Bearer ${bearer}` }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          return { status: response.status, body: (await response.json()) as { code?: string } };
        };
        const most = await busiest(fresh.url, () => throughEveryLimit(send, token));
        if (size === 2) expect(most.pooled).toBe(2);
        else expect(most.pooled).toBeLessThanOrEqual(size);
        expect(most.pooled).toBeGreaterThan(0);
        expect(most.listening).toBe(1);
        expect(most.total).toBeLessThanOrEqual(size + 1);
        await expectCountedInPostgres(fresh.url);
      } finally {
        serve.child.kill('SIGTERM');
        expect(await serve.exited).toBe(0);
      }
    }
  });

  it('a count waits for a pooled connection no longer than the store timeout, then counts in the process', async () => {
    const fresh = await database();
    const logs = captureLogs('warn');
    const server = await startTestServer({
      database: { kind: 'postgres', url: fresh.url },
      rateLimit: 10_000,
      config: { pgPoolSize: 1, rateLimitStoreTimeoutMs: 300 },
      log: logs.log,
    });
    try {
      const token = await server.token(await server.createCompany(), '*');
      // Once: the token is then known from memory, and only the count needs the pool.
      expect((await server.request('GET', '/me', { token })).status).toBe(200);
      const held = await server.app.services.storage.pool!.connect();
      const pending = server.request('GET', '/me', { token });
      try {
        // Well before the pool's own 5 s connect timeout would fail the wait.
        await expect
          .poll(() => logs.text(), { timeout: 4000, interval: 50 })
          .toContain('the shared store does not answer');
      } finally {
        held.release();
      }
      expect((await pending).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('--pg-pool-size takes a whole number from 1 up, and says so otherwise', async () => {
    for (const bad of ['0', '2.5']) {
      const serve = startServe([
        '--database-url',
        'postgres://127.0.0.1:1/none',
        '--pg-pool-size',
        bad,
      ]);
      await expect(serve).rejects.toThrow(/--pg-pool-size must be a whole number from 1 to 1000/);
    }
  });
});
