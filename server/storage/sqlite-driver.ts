import {
  type CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteQueryCompiler,
} from 'kysely';
import type { GroupCommit } from './group-commit.ts';

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its
 * migrator would run each migration statement by statement: a process killed in the middle
 * of one (kill -9 on a first start) would leave a half-made schema that the next start
 * cannot migrate. Saying so makes the pending migrations one transaction: all or nothing.
 *
 * It also says the dialect may use several connections, which turns off Kysely's own lock
 * on the one connection: the driver below keeps that lock itself, so that a transaction
 * can let the next one in as soon as its work has joined the group commit.
 */
class GroupedSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** One hold of the connection: what Kysely is handed for one query or one transaction. */
class Lease implements DatabaseConnection {
  readonly #inner: DatabaseConnection;
  released = false;
  /** Set once its transaction has ended in the group: a later rollback has nothing to undo. */
  ended = false;

  constructor(inner: DatabaseConnection) {
    this.#inner = inner;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.#inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.#inner.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Kysely's better-sqlite3 driver, with every transaction a member of the connection's
 * group commit (group-commit.ts): `BEGIN` opens the group (or joins the open one) and a
 * savepoint; `COMMIT` releases the savepoint, lets the next holder of the connection in,
 * and waits for the group's commit before the transaction's caller goes on; `ROLLBACK`
 * undoes the savepoint only. One holder at a time, as with Kysely's own lock: a query or a
 * transaction waits for the connection; a transaction holds it from its `BEGIN` to its
 * `COMMIT` or `ROLLBACK`.
 */
class GroupedSqliteDriver implements Driver {
  readonly #inner: SqliteDriver;
  readonly #group: GroupCommit;
  #held = false;
  readonly #waiting: (() => void)[] = [];

  constructor(config: SqliteDialectConfig, group: GroupCommit) {
    this.#inner = new SqliteDriver(config);
    this.#group = group;
  }

  init(): Promise<void> {
    return this.#inner.init();
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#held = true;
    return new Lease(await this.#inner.acquireConnection());
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.#release(connection as Lease);
  }

  async beginTransaction(): Promise<void> {
    this.#group.begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    lease.ended = true;
    const committed = this.#group.end(undefined);
    this.#release(lease);
    await committed;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const lease = connection as Lease;
    if (lease.ended) return;
    lease.ended = true;
    // Heard by the group's other members only if SQLite rolled back the whole transaction.
    this.#group.undo(new Error('SQLite rolled back the transaction this write was grouped in.'));
  }

  /** Hands the connection to the next waiter (once per lease). */
  #release(lease: Lease): void {
    if (lease.released) return;
    lease.released = true;
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

/** Kysely's SQLite dialect over better-sqlite3, with the group-committing driver above. */
export class GroupedSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  readonly #group: GroupCommit;

  constructor(config: SqliteDialectConfig, group: GroupCommit) {
    super(config);
    this.#config = config;
    this.#group = group;
  }

  override createDriver(): Driver {
    return new GroupedSqliteDriver(this.#config, this.#group);
  }

  override createAdapter(): DialectAdapter {
    return new GroupedSqliteAdapter();
  }

  override createQueryCompiler(): SqliteQueryCompiler {
    return new PlanKeepingCompiler();
  }
}

/**
 * Every parameter written `+?` rather than `?`: the same value, and a statement whose plan
 * SQLite never throws away. better-sqlite3 clears a statement's bindings after each run
 * (`sqlite3_clear_bindings`), and SQLite then expires any statement whose planner looked at
 * a bound value: a join with `x = ?`, a `limit ?`, a `status = ?` matched against a partial
 * index. Each run of such a statement parsed and planned it again (a route's two-table read
 * cost 18 µs instead of 1.3). The planner does not look through `+`, so the plan made once
 * stays: a query that needs a partial index names its constant as a literal (`sql.lit`), as
 * the queue's do. Pinned by test/storage/sqlite-plans-kept.test.ts.
 */
export class PlanKeepingCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?';
  }
}
