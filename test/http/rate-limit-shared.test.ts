import { createServer, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { namespaceOf } from '../../server/http/shared-rate-limit.ts';
import { closedPort } from '../helpers/ports.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { testRedisUrl } from '../helpers/redis.ts';
import { captureLogs, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The rate limit counted by every instance (docs/scale-out.md): two real instances on one
 * PostgreSQL database, the limit kept in PostgreSQL or in Redis (127.0.0.1:6379), and
 * SQLite's in-process count unchanged. Limit 20 a minute, so the tests are quick.
 */

const limit = 20;
vi.setConfig({ testTimeout: 180_000 });
const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function postgresPair(config: { redisUrl?: string } = {}) {
  const database = await freshDatabase();
  databases.push(database);
  const target = { kind: 'postgres', url: database.url } as const;
  // A store that answers late is a failover to memory (fail open), which lets more through:
  // on a loaded machine that must not happen here, so the store may take its time.
  const patient = { ...config, rateLimitStoreTimeoutMs: 60_000 };
  const one = await startTestServer({ database: target, rateLimit: limit, config: patient });
  const two = await startTestServer({ database: target, rateLimit: limit, config: patient });
  return { database, one, two };
}

interface Tally {
  ok: number;
  limited: number;
  limitedBy: Set<string>;
  retryAfter: number[];
}

/** `count` calls of GET /me on one token, spread round-robin over the servers, 20 at a time. */
async function hammer(
  servers: TestServer[],
  token: string,
  count: number,
  headers: Record<string, string> | ((n: number) => Record<string, string>) = {},
): Promise<Tally> {
  const tally: Tally = { ok: 0, limited: 0, limitedBy: new Set(), retryAfter: [] };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const server = servers[n % servers.length]!;
      const sent = typeof headers === 'function' ? headers(n) : headers;
      const answer = await server.request('GET', '/me', { token, headers: sent });
      expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limit));
      if (answer.status === 200) tally.ok++;
      else {
        expect(answer.status).toBe(429);
        expect(answer.body.code).toBe('rate_limited');
        expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
        tally.limited++;
        tally.limitedBy.add(server.url);
        tally.retryAfter.push(Number(answer.headers.get('retry-after')));
      }
    }
  };
  await Promise.all(Array.from({ length: 20 }, worker));
  return tally;
}

/** A uuid of its own for each request, as a token rotating `X-Agent-Id` would send. */
const madeUpAgent = (n: number) => ({
  'x-agent-id': `a3bb189e-8bf9-4888-9912-${String(n).padStart(12, '0')}`,
});

function expectLimited(tally: Tally, count: number, servers: number): void {
  expect(tally.ok).toBe(limit);
  expect(tally.limited).toBe(count - limit);
  expect(tally.limitedBy.size).toBe(servers);
  for (const seconds of tally.retryAfter) {
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
  }
}

/** The one counter the store holds (one token, one window). */
async function storedCount(store: 'postgres' | 'redis', url: string): Promise<number> {
  if (store === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query('select points from rate_limits');
      expect(rows).toHaveLength(1);
      return Number(rows[0].points);
    } finally {
      await client.end();
    }
  }
  const redis = new Redis(await testRedisUrl());
  try {
    const keys = await redis.keys(`shopdesk:${namespaceOf({ kind: 'postgres', url })}:rl*`);
    expect(keys).toHaveLength(1);
    return Number(await redis.get(keys[0]!));
  } finally {
    redis.disconnect();
  }
}

/** The servers' settings for the store: PostgreSQL is theirs already; Redis is named. */
async function storeConfig(store: 'postgres' | 'redis'): Promise<{ redisUrl?: string }> {
  return store === 'redis' ? { redisUrl: await testRedisUrl() } : {};
}

describe.each(['postgres', 'redis'] as const)(
  'shared rate limit in %s, two instances on one PostgreSQL database',
  (store) => {
    it('1,500 requests on one token over both instances: the limit holds across them', async () => {
      const { one, two, database } = await postgresPair(await storeConfig(store));
      try {
        const token = await one.token(await one.createCompany(), '*');
        const tally = await hammer([one, two], token, 1500);
        expectLimited(tally, 1500, 2);
        // Counted in the store, not in each process: its counter is past the limit.
        expect(await storedCount(store, database.url)).toBeGreaterThan(limit);
        // Another token has its own count.
        const other = await two.token(await two.createCompany(), '*');
        expect((await one.request('GET', '/me', { token: other })).status).toBe(200);
      } finally {
        await one.close();
        await two.close();
      }
    });

    it('one token, one count: an unbound agent token naming a new X-Agent-Id each time gets no more', async () => {
      const { one, two } = await postgresPair(await storeConfig(store));
      try {
        const company = await one.createCompany();
        // Bound to no agent: it may name any agent of its company; counted per token and
        // agent, a new made-up id on each request was a fresh budget each time.
        const token = await one.token(company, ['printing.agent']);
        expectLimited(await hammer([one, two], token, 40, madeUpAgent), 40, 2);
        // Nor does an integrator's token.
        const integrator = await one.token(company, ['products.read']);
        expectLimited(await hammer([one, two], integrator, 40, madeUpAgent), 40, 2);
      } finally {
        await one.close();
        await two.close();
      }
    });
  },
);

describe('when the shared store is unreachable: fail open, counted in the process, with a warning', () => {
  it('Redis on a closed port: the server starts, answers, limits per process and warns', async () => {
    const logs = captureLogs('warn');
    const server = await startTestServer({
      rateLimit: limit,
      config: { redisUrl: `redis://127.0.0.1:${await closedPort()}` },
      log: logs.log,
    });
    try {
      const token = await server.token(await server.createCompany(), '*');
      expectLimited(await hammer([server], token, 40), 40, 1);
      expect(logs.text()).toContain('Redis is not reachable');
      expect(logs.text()).toContain('the shared store does not answer');
    } finally {
      await server.close();
    }
  });

  it('Redis that accepts connections and never answers: nothing waits on it past its timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const logs = captureLogs('warn');
    try {
      const server = await startTestServer({
        rateLimit: limit,
        config: { redisUrl: `redis://127.0.0.1:${port}`, rateLimitStoreTimeoutMs: 300 },
        log: logs.log,
      });
      try {
        expect(sockets.length).toBeGreaterThan(0);
        const token = await server.token(await server.createCompany(), '*');
        expectLimited(await hammer([server], token, 30), 30, 1);
        expect(logs.text()).toContain('the shared store does not answer');
      } finally {
        await server.close();
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('PostgreSQL store whose table is dropped: requests go on, counted in the process', async () => {
    const logs = captureLogs('warn');
    const database = await freshDatabase();
    databases.push(database);
    const server = await startTestServer({
      database: { kind: 'postgres', url: database.url },
      rateLimit: limit,
      log: logs.log,
    });
    try {
      const token = await server.token(await server.createCompany(), '*');
      expect((await hammer([server], token, 5)).ok).toBe(5);
      expect(logs.text()).toBe('');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query('drop table rate_limits');
      await admin.end();
      // The in-process count starts afresh: 20 more, then 429.
      expectLimited(await hammer([server], token, 40), 40, 1);
      expect(logs.text()).toContain('the shared store does not answer');
    } finally {
      await server.close();
    }
  });
});

describe('SQLite: one process, counted in memory as before', () => {
  it('20 a minute per token, then 429 with the same headers', async () => {
    const server = await startTestServer({ rateLimit: limit });
    try {
      expect(server.app.services.config.rateLimitPerMinute).toBe(limit);
      const token = await server.token(await server.createCompany(), '*');
      expectLimited(await hammer([server], token, 100), 100, 1);
    } finally {
      await server.close();
    }
  });

  it('counts an agent token per token, whatever X-Agent-Id it names', async () => {
    const server = await startTestServer({ rateLimit: limit });
    try {
      const token = await server.token(await server.createCompany(), ['printing.agent']);
      expectLimited(await hammer([server], token, 30, madeUpAgent), 30, 1);
    } finally {
      await server.close();
    }
  });
});
