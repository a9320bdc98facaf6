import { type Compilable, type CompiledQuery, type Kysely, PostgresAdapter } from 'kysely';
import type { Db, Dialect } from './db.ts';
import type { GroupCommit } from './group-commit.ts';
import { nameStatement } from './pg-named-statements.ts';
import type { Database } from './schema.ts';

/** Stands, in a query compiled once, for the parameter a call gives at run time. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** What prepared queries need of an SQLite connection to run on it directly. */
export interface DirectSqlite {
  prepare(sql: string): {
    readonly reader: boolean;
    /** Whether it writes nothing (better-sqlite3's `readonly`): a read may join the group. */
    readonly readonly: boolean;
    all(parameters: readonly unknown[]): unknown[];
    run(parameters: readonly unknown[]): { lastInsertRowid: number | bigint };
  };
  /** The connection's group commit (group-commit.ts); `settle()` it before another use. */
  readonly group: GroupCommit;
}

const directConnections = new WeakMap<object, DirectSqlite>();

/**
 * Lets prepared queries on `db` (and its transactions) run straight on its one SQLite
 * connection, skipping Kysely's connection mutex and promise chain.
 *
 * Safe because better-sqlite3 runs each statement synchronously, so nothing interleaves
 * within one, and a statement goes direct only when it cannot land inside someone else's
 * transaction: either `db` is the transaction that holds the connection, or no transaction
 * is open on it (after `settle()`, the group's is open only while a member holds it:
 * `GroupCommit.open`). Otherwise it goes through Kysely and waits for the connection.
 */
export function runPreparedDirectly(db: Kysely<Database>, connection: DirectSqlite): void {
  directConnections.set(db.getExecutor().adapter, connection);
}

/** Hands `build` a slot for each parameter it reads. */
const slots = new Proxy({} as Record<string, Slot>, {
  get: (_target, name) => new Slot(String(name)),
});

/** A query compiled once, run with each call's parameters (see `prepared`). */
export interface Prepared<Params extends object, Row> {
  /**
   * Runs the query on `db` (or the transaction) with `params`: straight on the SQLite
   * connection when that is safe (see `runPreparedDirectly`), otherwise through Kysely.
   */
  (db: Db, params: Params): Row[] | Promise<Row[]>;
  /**
   * The compiled query with `params` in place, for a caller that must run it itself on a
   * given connection or transaction (`db.executeQuery(...)`), such as one taken with
   * `db.connection()` that holds its own `BEGIN IMMEDIATE`.
   */
  compile(db: Db, params: Params): CompiledQuery<Row>;
  /**
   * Runs the query straight on the SQLite connection, synchronously: only inside
   * `work` of `groupedSqliteTransaction`, which holds the connection for it.
   */
  sync(db: Db, params: Params): Row[];
  /**
   * `sync` for an INSERT without `RETURNING`: the new row's id, SQLite's last_insert_rowid
   * from the run's own result, without a `RETURNING id` to read back.
   */
  insertSync(db: Db, params: Params): number;
}

/**
 * A query built and compiled once per dialect, then run with each call's parameters.
 * Building and compiling a Kysely query costs more than running an SQLite point read, and
 * hot paths (reading a customer, creating one, claiming a print job) would pay it on every
 * request.
 *
 * `build` gets placeholders in place of its parameters, so it must use each one only as
 * a value (`where('id', '=', p.id)`, `values({ name: p.name })`) and never branch on it
 * or spread it: the query's shape must not depend on the parameters. It may branch on
 * `dialect`, which it is given: the query is compiled once for each database.
 */
export function prepared<Params extends object, Row>(
  build: (db: Kysely<Database>, params: Params, dialect: Dialect) => Compilable<Row>,
): Prepared<Params, Row> {
  // Keyed by the dialect adapter: a Kysely instance and its transactions share it.
  const plans = new WeakMap<object, Plan<Row>>();
  const planOf = (db: Db, adapter: object): Plan<Row> => {
    let plan = plans.get(adapter);
    if (!plan) {
      const dialect: Dialect = adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
      const query = build(db, slots as Params, dialect).compile();
      if (dialect === 'postgres') nameStatement(query.sql);
      plan = new Plan(query, directConnections.get(adapter));
      plans.set(adapter, plan);
    }
    return plan;
  };
  const withParams = (db: Db, params: Params): CompiledQuery<Row> => {
    const plan = planOf(db, db.getExecutor().adapter);
    return { ...plan.query, parameters: plan.parametersOf(params) };
  };
  // Not async: the direct path answers at once, without a promise; callers await either.
  const run = (db: Db, params: Params): Row[] | Promise<Row[]> => {
    const plan = planOf(db, db.getExecutor().adapter);
    const parameters = plan.parametersOf(params);
    const direct = plan.direct;
    if (direct && !db.isTransaction && direct.group.open) {
      const joined = readInGroup(direct.group, plan.statement(), parameters);
      if (joined) return joined as Promise<Row[]>;
    }
    direct?.group.settle();
    if (direct && (db.isTransaction || !direct.group.open)) {
      const statement = plan.statement();
      if (statement.reader) return statement.all(parameters) as Row[];
      statement.run(parameters);
      return [];
    }
    return db.executeQuery<Row>({ ...plan.query, parameters }).then((result) => result.rows);
  };
  const syncPlan = (db: Db) => {
    const plan = planOf(db, db.getExecutor().adapter);
    if (!plan.direct?.group.running)
      throw new Error('prepared.sync runs only in groupedSqliteTransaction');
    return plan;
  };
  const sync = (db: Db, params: Params): Row[] => {
    const plan = syncPlan(db);
    const statement = plan.statement();
    if (statement.reader) return statement.all(plan.parametersOf(params)) as Row[];
    statement.run(plan.parametersOf(params));
    return [];
  };
  const insertSync = (db: Db, params: Params): number => {
    const plan = syncPlan(db);
    return Number(plan.statement().run(plan.parametersOf(params)).lastInsertRowid);
  };
  return Object.assign(run, { compile: withParams, sync, insertSync });
}

type DirectStatement = ReturnType<DirectSqlite['prepare']>;

/**
 * One prepared query on one database: its compiled SQL, where each call's parameters go,
 * and (SQLite) its statement, taken from the connection's cache once.
 */
class Plan<Row> {
  readonly query: CompiledQuery<Row>;
  readonly direct: DirectSqlite | undefined;
  /** For each parameter of the SQL: the name of the call's value, or undefined (a constant). */
  readonly #names: (string | undefined)[];
  #statement: DirectStatement | undefined;

  constructor(query: CompiledQuery<Row>, direct: DirectSqlite | undefined) {
    this.query = query;
    this.direct = direct;
    this.#names = query.parameters.map((value) => (value instanceof Slot ? value.name : undefined));
  }

  parametersOf(params: object): unknown[] {
    const values = params as Record<string, unknown>;
    const names = this.#names;
    const parameters = new Array<unknown>(names.length);
    for (let index = 0; index < names.length; index++) {
      const name = names[index];
      parameters[index] = name === undefined ? this.query.parameters[index] : values[name];
    }
    return parameters;
  }

  statement(): DirectStatement {
    this.#statement ??= this.direct!.prepare(this.query.sql);
    return this.#statement;
  }
}

/**
 * SQLite: runs `work` straight on the connection, synchronously (no Kysely transaction, no
 * promise inside), as a member of the connection's group commit (group-commit.ts): in the
 * transaction that the writes started in this turn of the event loop share, in a savepoint
 * of its own (undone when `work` throws). `work` runs its statements with `Prepared.sync`
 * and must not await; nothing can interleave with it. The promise settles once the group
 * has committed.
 *
 * Answers `undefined`, running nothing, when it cannot: on PostgreSQL, when `db` is a
 * transaction (a larger unit of work is open in this call chain) or when another
 * transaction holds the connection; the caller then takes its ordinary path.
 */
export function groupedSqliteTransaction<T>(db: Db, work: () => T): Promise<T> | undefined {
  if (db.isTransaction) return undefined;
  return directConnections.get(db.getExecutor().adapter)?.group.join(work);
}

/**
 * A read while this turn's group commit is open (`group-commit.ts`) joins the group rather
 * than committing it early: its rows come once the group has committed, so no answer is
 * made of rows that could still be rolled back, and the turn's writes still pay one commit,
 * not one for each read between them (a create reads its route before it writes: 32 creates
 * at once were 32 commits). A read that fails rejects its own caller only. Undefined (the
 * caller commits the group and runs it as before) for a statement that writes (an UPDATE …
 * RETURNING included), or while a member runs.
 */
function readInGroup(
  group: GroupCommit,
  statement: DirectStatement,
  parameters: unknown[],
): Promise<unknown[]> | undefined {
  if (!statement.readonly) return undefined;
  let rows: unknown[] = [];
  let failed: { error: unknown } | undefined;
  const joined = group.join(() => {
    try {
      rows = statement.all(parameters);
    } catch (error) {
      failed = { error };
    }
  });
  return joined?.then(() => {
    if (failed) throw failed.error;
    return rows;
  });
}
