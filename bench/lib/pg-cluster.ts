/**
 * For the multi-instance PostgreSQL bench: a fresh database, several `shopdesk serve`
 * processes on it (each counting its queries, bench/lib/pg-query-counter.ts), a company with
 * an agent token and an integrator token, and what the database's own processes cost.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { QueryCounts } from './pg-query-counter.ts';
import type { Tokens } from './print-client.ts';
import { cpuSecondsOf, profileFlags, type RunningServer, startServer } from './spawn.ts';

const thisCheckout = fileURLToPath(new URL('../..', import.meta.url));

export interface FreshDatabase {
  name: string;
  url: string;
  /** A query on the fresh database, on a connection of its own. */
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function once<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/**
 * `shopdesk_bench_<pid>` (and `_<suffix>`) on the server of `adminUrl` (dropped first if a
 * run left it).
 */
export async function freshDatabase(adminUrl: string, suffix = ''): Promise<FreshDatabase> {
  const name = `shopdesk_bench_${process.pid}${suffix ? `_${suffix}` : ''}`;
  await once(adminUrl, `drop database if exists ${name} with (force)`);
  await once(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    query: (text, values) => once(url.toString(), text, values),
    drop: async () => {
      await once(adminUrl, `drop database if exists ${name} with (force)`);
    },
  };
}

export interface Instance extends RunningServer {
  /** The query counts of this process so far. */
  counts(): Promise<QueryCounts>;
}

/**
 * `shopdesk serve --database-url URL --port 0 --rate-limit 0`, warnings-only log; this
 * checkout's, or that of `checkout` (another worktree, with its own query counter).
 */
export async function startInstance(
  name: string,
  databaseUrl: string,
  dir: string,
  checkout = thisCheckout,
): Promise<Instance> {
  const executable = join(checkout, 'bin/shopdesk.js');
  const counter = join(checkout, 'bench/lib/pg-query-counter.ts');
  const countsFile = join(dir, `${name}.counts.json`);
  const server = await startServer(
    name,
    process.execPath,
    [
      ...profileFlags(name),
      '--import',
      counter,
      executable,
      'serve',
      '--port',
      '0',
      '--database-url',
      databaseUrl,
      '--rate-limit',
      '0',
    ],
    { SHOPDESK_LOG_LEVEL: 'warn', BENCH_PG_COUNTER_FILE: countsFile },
  );
  return {
    ...server,
    counts: async () => {
      rmSync(countsFile, { force: true });
      server.child.kill('SIGUSR2');
      const deadline = performance.now() + 5000;
      while (!existsSync(countsFile)) {
        if (performance.now() > deadline) throw new Error(`${name}: no query counts`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return JSON.parse(readFileSync(countsFile, 'utf8')) as QueryCounts;
    },
  };
}

/** A company, an agent token and an integrator token, written through the server's modules. */
export async function seedCompany(databaseUrl: string): Promise<Tokens> {
  const { openStorage } = await import('../../server/storage/database.ts');
  const { createCompany } = await import('../../server/companies/create-company.ts');
  const { issuePrintTokens } = await import('./print-tokens.ts');
  const storage = openStorage({ kind: 'postgres', url: databaseUrl });
  try {
    const company = await createCompany(storage.db, 'Bench shop');
    return await issuePrintTokens(storage, company);
  } finally {
    await storage.close();
  }
}

/** Counts of `after` less `before`, per statement kind. */
export function countsBetween(before: QueryCounts[], after: QueryCounts[]): QueryCounts['kinds'] {
  const sum = (all: QueryCounts[]) => {
    const total: QueryCounts['kinds'] = {};
    for (const { kinds } of all) {
      for (const [kind, { count, ms }] of Object.entries(kinds)) {
        const entry = total[kind] ?? { count: 0, ms: 0 };
        entry.count += count;
        entry.ms += ms;
        total[kind] = entry;
      }
    }
    return total;
  };
  const start = sum(before);
  const end = sum(after);
  const diff: QueryCounts['kinds'] = {};
  for (const [kind, { count, ms }] of Object.entries(end)) {
    const was = start[kind] ?? { count: 0, ms: 0 };
    if (count > was.count) diff[kind] = { count: count - was.count, ms: ms - was.ms };
  }
  return diff;
}

/**
 * CPU seconds used so far by each PostgreSQL backend serving `database` (from /proc; the
 * server runs on this machine). Backends that leave between two readings take their last
 * seconds with them, so the sum is a floor.
 */
export async function backendCpu(adminUrl: string, database: string): Promise<Map<number, number>> {
  const rows = await once<{ pid: number }>(
    adminUrl,
    'select pid from pg_stat_activity where datname = $1',
    [database],
  );
  const cpu = new Map<number, number>();
  for (const { pid } of rows) {
    const seconds = cpuSecondsOf(pid);
    if (seconds !== null) cpu.set(pid, seconds);
  }
  return cpu;
}

export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** Removes the temporary folder of the counts. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
