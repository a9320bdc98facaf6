/**
 * Bench-only preload (`node --import ./bench/lib/pg-query-counter.ts bin/shopdesk.js serve
 * ...`): counts every query a `shopdesk serve` process sends to PostgreSQL, without a line of
 * the server changed. It wraps `pg`'s `Client.prototype.query`, through which the pool's
 * connections (Kysely) and the LISTEN connection send everything; each call is one round
 * trip (a parameterised query goes as parse/bind/execute/sync in one flight). Per kind of
 * statement (its verb and first table) it keeps the count and the milliseconds from the
 * call to its answer.
 *
 * On SIGUSR2 it writes the totals so far, as JSON, to `BENCH_PG_COUNTER_FILE` (written
 * beside it and renamed, so a reader never sees half a file). The bench deletes the file,
 * sends the signal and waits for the file: before and after a phase, the difference is
 * what the phase cost.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// The same `pg` module (same path, same CommonJS cache entry) that server/storage loads.
const require = createRequire(new URL('../../server/storage/database.ts', import.meta.url));
const pg = require('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };

export interface QueryCounts {
  /** Per statement kind: calls and milliseconds from the call to the answer. */
  kinds: Record<string, { count: number; ms: number }>;
}

const kinds: QueryCounts['kinds'] = {};

/**
 * `update print_jobs`, `insert print_job_events`, `select print_documents`, `begin`; a
 * statement with CTEs by its first CTE's name (`with claimed`).
 */
export function kindOf(text: string): string {
  const sql = text.trim().toLowerCase();
  const verb = /^[a-z]+/.exec(sql)?.[0] ?? '?';
  if (verb === 'select' && sql.includes('pg_notify')) return 'select pg_notify';
  const table =
    verb === 'update'
      ? /^update\s+"?([a-z_]+)/.exec(sql)?.[1]
      : verb === 'insert'
        ? /^insert\s+into\s+"?([a-z_]+)/.exec(sql)?.[1]
        : verb === 'delete'
          ? /^delete\s+from\s+"?([a-z_]+)/.exec(sql)?.[1]
          : verb === 'with'
            ? /^with\s+"?([a-z_]+)/.exec(sql)?.[1]
            : verb === 'select'
              ? /\bfrom\s+"?([a-z_]+)/.exec(sql)?.[1]
              : undefined;
  return table ? `${verb} ${table}` : verb;
}

const original = pg.Client.prototype.query;
pg.Client.prototype.query = function counted(this: unknown, ...args: unknown[]) {
  const first = args[0];
  const text =
    typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
  const kind = kindOf(text);
  const entry = kinds[kind] ?? { count: 0, ms: 0 };
  kinds[kind] = entry;
  entry.count += 1;
  const started = performance.now();
  const result = original.apply(this, args);
  if (result && typeof (result as Promise<unknown>).then === 'function') {
    (result as Promise<unknown>).then(
      () => {
        entry.ms += performance.now() - started;
      },
      () => {
        entry.ms += performance.now() - started;
      },
    );
  }
  return result;
};

const file = process.env.BENCH_PG_COUNTER_FILE;
if (file) {
  process.on('SIGUSR2', () => {
    const counts: QueryCounts = { kinds };
    writeFileSync(`${file}.tmp`, JSON.stringify(counts));
    renameSync(`${file}.tmp`, file);
  });
}
