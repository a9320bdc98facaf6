import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';

const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

/**
 * What server/storage/sqlite-driver.ts (`PlanKeepingCompiler`) relies on: SQLite plans
 * with the values bound to `?` where it can (and so expires the plan whenever better-sqlite3
 * clears the bindings after a run), but never looks through `+?`. A partial index makes it
 * visible: SQLite uses one for `status = ?` only when it planned with the bound value.
 */
describe('SQLite plans kept across runs', () => {
  let raw: BetterSqlite3.Database;

  beforeEach(() => {
    raw = new Sqlite(':memory:');
    raw.exec(`
      create table jobs (id integer primary key, status text not null, at text not null);
      create index jobs_queued on jobs (at) where status = 'queued';
    `);
  });
  afterEach(() => raw.close());

  const planOf = (where: string) =>
    (
      raw
        .prepare(`explain query plan select id from jobs where ${where} and at > ?`)
        .all('queued', '2026') as Array<{ detail: string }>
    )
      .map((row) => row.detail)
      .join('; ');

  it('SQLite plans `status = ?` with its bound value: the partial index, planned again each run', () => {
    expect(planOf('status = ?')).toContain('jobs_queued');
  });

  it('SQLite does not look through `+?`: the plan made without values stands', () => {
    expect(planOf('status = +?')).not.toContain('jobs_queued');
  });
});

describe("the storage's SQLite compiler", () => {
  let storage: Storage;

  beforeEach(async () => {
    storage = openStorage({ kind: 'sqlite', file: ':memory:' });
    await migrateToLatest(storage);
  });
  afterEach(() => storage.close());

  it('writes every parameter `+?`: a where, a limit, a value inserted', () => {
    const read = storage.db
      .selectFrom('print_routes as r')
      .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
      .select('r.name')
      .where('r.company_id', '=', 1)
      .where('r.name', '=', 'front')
      .limit(1)
      .compile();
    expect(read.sql).toMatch(/"r"\."company_id" = \+\? and "r"\."name" = \+\? limit \+\?$/);
    expect(read.sql).not.toMatch(/[^+]\?/);
    const insert = storage.db
      .insertInto('companies')
      .values({ name: 'Shop', created_at: '2026-11-29T00:00:00Z' })
      .compile();
    expect(insert.sql).toContain('values (+?, +?)');
  });

  it('answers the same rows through `+?`: text, numbers, blobs and null compare as before', async () => {
    const { db } = storage;
    await db.insertInto('companies').values({ name: 'Shop', created_at: '2026' }).execute();
    const found = await db
      .selectFrom('companies')
      .select(['id', 'name'])
      .where('name', '=', 'Shop')
      .where('id', '=', 1)
      .where('id', 'in', [1, 2])
      .execute();
    expect(found).toEqual([{ id: 1, name: 'Shop' }]);
    // A text bound against an integer column takes the column's affinity, as with `?`.
    const byText = await db
      .selectFrom('companies')
      .select('id')
      .where('id', '=', '1' as unknown as number)
      .execute();
    expect(byText).toEqual([{ id: 1 }]);
  });
});
