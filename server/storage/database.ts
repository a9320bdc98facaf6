import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import {
  Kysely,
  PostgresDialect,
  type SqliteDatabase,
  type SqliteStatement,
  type Transaction,
} from 'kysely';
import type PgModule from 'pg';
import type { DatabaseTarget } from '../config.ts';
import {
  type ChangeWatch,
  PostgresChangeWatch,
  SqliteChangeWatch,
  type WatchedCache,
  type WatchOptions,
} from './change-watch.ts';
import { checkpointerWhenWalGrows } from './checkpointer.ts';
import type { Db, Dialect } from './db.ts';
import { GroupCommit } from './group-commit.ts';
import { ListenConnection } from './listen-connection.ts';
import { namedStatementPool } from './pg-named-statements.ts';
import { type DirectSqlite, runPreparedDirectly } from './prepared.ts';
import type { Database } from './schema.ts';
import { GroupedSqliteDialect } from './sqlite-driver.ts';
import { Transactions } from './transactions.ts';

// Each driver is loaded when a database of its kind is opened, not before: a CLI command on
// SQLite never pays for loading `pg`, nor one on PostgreSQL for the SQLite binding.
const require = createRequire(import.meta.url);

/**
 * The storage every domain module works through: one Kysely instance over SQLite (embedded
 * default) or PostgreSQL (several server instances), so queries are written once.
 */
export interface Storage {
  /** The database itself (never a transaction: a unit of work passes its `trx` explicitly). */
  readonly db: Kysely<Database>;
  /**
   * Runs `work` atomically within `db`: in `db` when it is a transaction of this storage (the
   * caller's larger unit of work: an idempotent request stores its answer in its write's
   * transaction), in a new transaction when `db` is the database (`transactions.ts`).
   */
  transaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * Runs `hook` once `db`'s transaction has committed (dropped if it rolls back); at once
   * when `db` is the database.
   */
  afterCommit(db: Db, hook: () => void): void;
  dialect: Dialect;
  /**
   * The one of `implementations` made for this database: for wiring a part that has an
   * implementation per database (the print queue's store), so that the part above it never
   * asks which database runs. Queries use the SQL helpers of this folder instead.
   */
  byDialect<T>(implementations: { sqlite: () => T; postgres: () => T }): T;
  /**
   * A number that changes whenever another process commits a write (SQLite; on PostgreSQL
   * it changes on every call, since nothing tells this instance of others' writes).
   */
  externalChangeMark(): number;
  /**
   * Keeps `cache` (rows other processes may change: tokens, webhook subscriptions) in step
   * with their writes, in this database's way (`change-watch.ts`).
   */
  watchChanges(cache: WatchedCache, options: WatchOptions): ChangeWatch;
  /**
   * PostgreSQL only: a new connection outside the pool, not yet connected, for a session
   * that must stay open on its own (the LISTEN connection; tests).
   */
  dedicatedClient?: () => PgModule.Client;
  /**
   * PostgreSQL only: the instance's one LISTEN connection, which every part that hears
   * notices subscribes to with its channel (the print queue, webhooks, tokens). Opened by
   * the first subscriber, ended by the last one or by `close`.
   */
  listener?: ListenConnection;
  /**
   * PostgreSQL only: the instance's one pool, which the queries run on, for a part that
   * works through a library of its own (the rate limits' counters, docs/scale-out.md). It
   * is the storage's: such a part never ends it; `close` does.
   */
  pool?: PgModule.Pool;
  close(): Promise<void>;
}

export interface StorageOptions {
  /** PostgreSQL: connections the pool opens at most (`--pg-pool-size`, default 10). */
  pgPoolSize?: number;
}

type OpenedStorage = Omit<
  Storage,
  'transaction' | 'afterCommit' | 'byDialect' | 'watchChanges' | 'listener'
>;

export function openStorage(target: DatabaseTarget, options: StorageOptions = {}): Storage {
  const opened =
    target.kind === 'sqlite'
      ? openSqlite(target.file)
      : openPostgres(target.url, options.pgPoolSize ?? defaultPgPoolSize);
  const transactions = new Transactions(opened.db);
  const listener = opened.dedicatedClient && new ListenConnection(opened.dedicatedClient);
  return {
    ...opened,
    listener,
    transaction: (db, work) => transactions.run(db, work),
    afterCommit: (db, hook) => transactions.afterCommit(db, hook),
    byDialect: (implementations) => implementations[opened.dialect](),
    watchChanges: (cache, options) =>
      listener
        ? new PostgresChangeWatch(cache, listener, options)
        : new SqliteChangeWatch(cache, opened.externalChangeMark, options.markEveryMs),
    close: async () => {
      await listener?.close();
      await opened.close();
    },
  };
}

function openSqlite(file: string): OpenedStorage {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const raw = new Sqlite(file);
  // WAL: readers never wait for the writer. synchronous=NORMAL keeps every committed
  // transaction across a process crash (kill -9); only a power loss can lose the last ones.
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  // The CLI writes while the server runs: wait for the lock instead of failing.
  raw.pragma('busy_timeout = 5000');
  // Checkpoints run on their own thread (checkpointer.ts), off the request path, started once
  // the WAL has grown past 1 MiB; the writer's own automatic checkpoint stays as a bound on
  // the WAL (~40 MB), should that thread fall behind under a sustained write load (or be gone).
  const checkpointer =
    file === ':memory:'
      ? undefined
      : checkpointerWhenWalGrows(file, require.resolve('better-sqlite3'));
  if (checkpointer) raw.pragma('wal_autocheckpoint = 10000');
  const dataVersion = raw.prepare('PRAGMA data_version').pluck();
  const statements = withStatementCache(raw);
  // BEGIN, SAVEPOINT and COMMIT prepared once, like the queries: `exec` would compile them
  // each time.
  const group = new GroupCommit({
    get inTransaction() {
      return raw.inTransaction;
    },
    exec: (sqlText) => {
      statements.prepare(sqlText).run([]);
    },
  });
  // Any use of the connection outside the open group commits the group first.
  const settled = (sqlText: string) => {
    group.settle();
    return statements.prepare(sqlText);
  };
  const db = new Kysely<Database>({
    dialect: new GroupedSqliteDialect(
      { database: { close: statements.close, prepare: settled } },
      group,
    ),
  });
  runPreparedDirectly(db, {
    prepare: (sqlText) =>
      statements.prepare(sqlText) as unknown as ReturnType<DirectSqlite['prepare']>,
    group,
  });
  return {
    db,
    dialect: 'sqlite',
    externalChangeMark: () => dataVersion.get() as number,
    close: async () => {
      group.settle();
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing costs more than running a
 * point read, so statements are kept by their SQL text. Queries with variable `IN (...)`
 * lists make new texts, hence the bound.
 */
function withStatementCache(raw: BetterSqlite3.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => raw.close(),
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (!statement) {
        if (statements.size >= 2000) statements.clear();
        statement = raw.prepare(sqlText) as unknown as SqliteStatement;
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

/**
 * Connections each instance's one pool opens at most unless `--pg-pool-size` says otherwise,
 * shared by the queries and the rate limits; beside it, one LISTEN connection (`listener`)
 * for the print queue, the webhook dispatcher and the token cache: N instances need
 * N × 11 of PostgreSQL's `max_connections` (100 by default), docs/deploy.md.
 */
export const defaultPgPoolSize = 10;

/** How the pool's connections and the LISTEN connection are named in `pg_stat_activity`. */
export const pooledApplicationName = 'shopdesk';
export const listenApplicationName = 'shopdesk listen';

function openPostgres(url: string, poolSize: number): OpenedStorage {
  const pg = require('pg') as typeof PgModule;
  // int8 (count(*), sums) comes back as a string by default; our values fit in a double.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Named in `pg_stat_activity`, apart from the LISTEN connection (an `application_name` in
    // the URL wins): what an operator counts against `max_connections` (docs/deploy.md).
    application_name: pooledApplicationName,
    // A database that does not answer a connect (down, or its host unreachable) fails the
    // request after 5 s with 503 `unavailable` instead of holding it until the client gives
    // up; one that refuses fails it at once (connection-loss.ts).
    connectionTimeoutMillis: 5000,
    // Connections cut without a word (a firewall, a host gone) are noticed by TCP probes.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  // A connection ended by the database (a restart, pg_terminate_backend, a dropped
  // database) is removed by the pool — idle, or when the query it ran fails and it is
  // released — and a new one is opened on the next query: the pool recovers by itself,
  // and the requests that met the cut answer 503 (docs/http.md). Without a listener the
  // pool would raise an idle connection's error as an uncaught exception.
  pool.on('error', () => {});
  // A connection cut while checked out but between queries (a transaction whose code runs
  // in JavaScript) emits `error` with no query to fail: the pool listens only to idle ones,
  // and an unheard `error` would stop the process. Heard here, it fails the next query
  // ("not queryable", a connection loss: 503) and the pool drops it when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {});
  });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: namedStatementPool(pool) }),
  });
  let mark = 0;
  return {
    db,
    dialect: 'postgres',
    // Another instance may write at any time and nothing tells this one: never cache.
    externalChangeMark: () => ++mark,
    // TCP keep-alive probes after 10 s idle, so that a connection cut without a word is
    // noticed; a connect that hangs gives up after 10 s (and is retried by its owner).
    dedicatedClient: () =>
      new pg.Client({
        connectionString: url,
        application_name: listenApplicationName,
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        connectionTimeoutMillis: 10_000,
      }),
    pool,
    close: () => db.destroy(),
  };
}

/**
 * Whether a write broke the unique index over `columns` of `table`, in either dialect's
 * words. A check-then-insert can race another connection (PostgreSQL pools several): the
 * index is the final word, and its refusal is the client's mistake, not a fault.
 */
export function violatesUnique(error: unknown, table: string, columns: string[]): boolean {
  const e = error as { code?: unknown; table?: unknown; detail?: unknown; message?: unknown };
  if (e?.code === '23505') {
    return e.table === table && String(e.detail).startsWith(`Key (${columns.join(', ')})=`);
  }
  if (e?.code === 'SQLITE_CONSTRAINT_UNIQUE') {
    const names = columns.map((column) => `${table}.${column}`).join(', ');
    return String(e.message).includes(`UNIQUE constraint failed: ${names}`);
  }
  return false;
}

/**
 * A `.catch` handler for a write guarded by a unique index: the index's refusal becomes
 * `refusal()` (the same 422 the check before the write gives), anything else is rethrown.
 */
export function onUniqueViolation(
  table: string,
  columns: string[],
  refusal: () => Error,
): (error: unknown) => never {
  return (error) => {
    if (violatesUnique(error, table, columns)) throw refusal();
    throw error;
  };
}
