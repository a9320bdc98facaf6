import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

/** Where a query runs: the database itself, or one of its transactions (same API). */
export type Db = Kysely<Database> | Transaction<Database>;
