/**
 * What the shared rate limit costs per request (docs/benchmarks.md, docs/scale-out.md):
 *
 * 1. the limiter call alone, in this process: memory (SQLite's), PostgreSQL, Redis; one call
 *    at a time (latency) and 32 at once (throughput), over 100 tokens;
 * 2. `GET /me` through a real `shopdesk serve` on one PostgreSQL database with no limit, the
 *    limit in PostgreSQL and the limit in Redis, run side by side: requests/s, p99 and the
 *    server's CPU time per request.
 *
 * `npx tsx bench/rate-limit.ts` (PostgreSQL on 127.0.0.1:5432, Redis on 127.0.0.1:6379;
 * SHOPDESK_TEST_PG / SHOPDESK_TEST_REDIS override). BENCH_SECONDS (5) per run.
 */
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import pino from 'pino';
import { createCompany } from '../server/companies/create-company.ts';
import { type RateLimit, RateLimiter } from '../server/http/rate-limit.ts';
import { SharedRateLimit } from '../server/http/shared-rate-limit.ts';
import { openStorage } from '../server/storage/database.ts';
import { migrateToLatest } from '../server/storage/migrate.ts';
import { createToken } from '../server/tokens/create-token.ts';
import { permissions } from '../shared/permissions.ts';
import { freshDatabase } from '../test/helpers/postgres.ts';
import { measure } from './lib/load.ts';
import { startServer } from './lib/spawn.ts';
import { fixed, formatTable } from './lib/table.ts';

const redisUrl = process.env.SHOPDESK_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const huge = 1_000_000_000;
const log = pino({ level: 'warn' });

async function perCall(limit: RateLimit, concurrency: number, calls: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) await limit.take(String(next++ % 100));
    }),
  );
  return ((performance.now() - started) * 1000) / calls;
}

const database = await freshDatabase();
console.log(
  `${cpus().length} cores, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} at start`,
);
try {
  // 1. The call alone (PostgreSQL on a pool like a server's: 10 connections).
  const counters = openStorage({ kind: 'postgres', url: database.url });
  const limiters: Array<[string, RateLimit]> = [
    ['memory (SQLite)', new RateLimiter(huge)],
    ['PostgreSQL', await SharedRateLimit.postgres(counters.pool!, huge, log)],
    [
      'Redis',
      await SharedRateLimit.redis(redisUrl, { kind: 'postgres', url: database.url }, huge, log),
    ],
  ];
  const callRows: string[][] = [];
  for (const [name, limit] of limiters) {
    await perCall(limit, 32, 2000); // warm-up: connections, prepared statements, JIT
    const one = await perCall(limit, 1, 5000);
    const many = await perCall(limit, 32, 20_000);
    callRows.push([name, fixed(one, 1), fixed(many, 1)]);
    await limit.close();
  }
  await counters.close();
  console.log('\nThe limiter call alone (µs per call; wall time, this process):\n');
  console.log(formatTable(['store', 'one at a time', '32 at once'], callRows));

  // 2. Through the server.
  const storage = openStorage({ kind: 'postgres', url: database.url });
  await migrateToLatest(storage);
  const companyId = await createCompany(storage.db, 'Bench Shop');
  const { secret } = await createToken(storage.db, {
    companyId,
    permissions: [...permissions],
    name: 'bench',
  });
  await storage.close();
  const bin = resolve(import.meta.dirname, '../bin/shopdesk.js');
  const variants: Array<[string, string[]]> = [
    ['no limit', ['--rate-limit', '0']],
    ['PostgreSQL', ['--rate-limit', String(huge)]],
    ['Redis', ['--rate-limit', String(huge), '--redis-url', redisUrl]],
  ];
  const rows: string[][] = [];
  let baseCpu = 0;
  for (const [name, flags] of variants) {
    const server = await startServer(
      name,
      process.execPath,
      [bin, 'serve', '--port', '0', '--database-url', database.url, ...flags],
      { SHOPDESK_LOG_LEVEL: 'warn', SHOPDESK_SECRET_KEY: Buffer.alloc(32, 1).toString('base64') },
    );
    try {
      const result = await measure(
        server.origin,
        server.child.pid,
        {
          method: 'GET',
          path: '/api/v1/me',
          headers: { authorization: `Bearer ${secret}`, accept: 'application/json' },
        },
        { connections: 10, warmupSeconds: 2, seconds },
      );
      if (result.failures > 0) throw new Error(`${name}: ${result.failures} failed requests`);
      const cpu = result.cpuUsPerRequest ?? 0;
      if (name === 'no limit') baseCpu = cpu;
      rows.push([
        name,
        fixed(result.requestsPerSecond),
        fixed(result.p99Ms, 1),
        fixed(cpu),
        name === 'no limit' ? '—' : `+${fixed(cpu - baseCpu)}`,
      ]);
    } finally {
      await server.stop();
    }
  }
  console.log('\nGET /me through `shopdesk serve` on PostgreSQL, 10 connections:\n');
  console.log(
    formatTable(['rate limit', 'req/s', 'p99 ms', 'server CPU µs/req', 'vs no limit'], rows),
  );
} finally {
  await database.drop();
}
