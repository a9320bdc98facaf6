import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

/** Where a query runs: the database itself, or one of its transactions (same API). */
export type Db = Kysely<Database> | Transaction<Database>;

/** The database `db` runs on, from its adapter (a Kysely instance and its transactions share it). */
export const dialectOf = (db: Db): Dialect =>
  db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
