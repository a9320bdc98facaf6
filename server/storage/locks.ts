import { sql } from 'kysely';
import { type Db, dialectOf } from './db.ts';

/**
 * Locks for writers that must not interleave, in each database's words. PostgreSQL runs
 * transactions concurrently (the pool, other instances), so a check-then-write locks what
 * it reads; SQLite runs one writing transaction at a time on its single connection (and
 * `BEGIN IMMEDIATE` holds the database's write lock for it), so there these add nothing.
 */

/** A row lock's strength (PostgreSQL's `FOR UPDATE`, `FOR NO KEY UPDATE`, `FOR KEY SHARE`). */
export type RowLock = 'update' | 'no key update' | 'key share';

/** What `lockRows` needs of a query: Kysely's SELECT builder. */
interface Lockable<Q> {
  forUpdate(): Q;
  forNoKeyUpdate(): Q;
  forKeyShare(): Q;
  skipLocked(): Q;
}

/**
 * `query` with its rows locked until `db`'s transaction ends (PostgreSQL); unchanged on
 * SQLite. `skipLocked`: rows another transaction holds are passed over instead of waited for.
 * `FOR NO KEY UPDATE` rather than `FOR UPDATE` where rows that reference the locked one may
 * be inserted meanwhile (docs/storage.md, "PostgreSQL").
 */
export function lockRows<Q extends Lockable<Q>>(
  db: Db,
  query: Q,
  lock: RowLock,
  { skipLocked = false }: { skipLocked?: boolean } = {},
): Q {
  if (dialectOf(db) !== 'postgres') return query;
  const locked =
    lock === 'update'
      ? query.forUpdate()
      : lock === 'no key update'
        ? query.forNoKeyUpdate()
        : query.forKeyShare();
  return skipLocked ? locked.skipLocked() : locked;
}

/**
 * Waits for, then holds until `db`'s transaction ends, the lock named by two integers
 * (PostgreSQL's transaction-scoped advisory lock): for a rule over several rows that no
 * single row lock covers (a company's relationship graph).
 */
export async function lockName(db: Db, first: number, second: number): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${first}, ${second})`.execute(db);
}

/**
 * Takes, until `db`'s transaction ends, the lock named by a 64-bit integer (decimal text),
 * or answers false at once when another transaction holds it. True on SQLite, where the
 * open transaction already excludes every other writer.
 */
export async function tryLockName(db: Db, name: string): Promise<boolean> {
  if (dialectOf(db) !== 'postgres') return true;
  const result = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_xact_lock(${name}::bigint) as locked`.execute(db);
  return result.rows[0]?.locked === true;
}
