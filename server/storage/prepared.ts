import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Stands, in a query compiled once, for the parameter a call gives at run time. */
class Slot {
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** What prepared queries need of an SQLite connection to run on it directly. */
export interface DirectSqlite {
  /** Whether a transaction is open on the connection (better-sqlite3's `inTransaction`). */
  readonly inTransaction: boolean;
  prepare(sql: string): {
    readonly reader: boolean;
    all(parameters: readonly unknown[]): unknown[];
    run(parameters: readonly unknown[]): unknown;
  };
}

const directConnections = new WeakMap<object, DirectSqlite>();

/**
 * Lets prepared queries on `db` (and its transactions) run straight on its one SQLite
 * connection, skipping Kysely's connection mutex and promise chain (a few µs a query).
 *
 * Safe because better-sqlite3 runs each statement synchronously, so nothing interleaves
 * within one, and a statement goes direct only when it cannot land inside someone else's
 * transaction: either `db` is the transaction that holds the connection, or no transaction
 * is open on it. Otherwise it goes through Kysely and waits for the connection, as before.
 */
export function runPreparedDirectly(db: Kysely<Database>, connection: DirectSqlite): void {
  directConnections.set(db.getExecutor().adapter, connection);
}

/** Hands `build` a slot for each parameter it reads. */
const slots = new Proxy({} as Record<string, Slot>, {
  get: (_target, name) => new Slot(String(name)),
});

/**
 * A query built and compiled once per dialect, then run with each call's parameters.
 * Building and compiling a Kysely query costs more than running an SQLite point read, and
 * hot paths (reading a customer, creating one) would pay it on every request.
 *
 * `build` gets placeholders in place of its parameters, so it must use each one only as
 * a value (`where('id', '=', p.id)`, `values({ name: p.name })`) and never branch on it
 * or spread it: the query's shape must not depend on the parameters.
 */
export function prepared<Params extends object, Row>(
  build: (db: Kysely<Database>, params: Params) => Compilable<Row>,
): (db: Db, params: Params) => Row[] | Promise<Row[]> {
  // Keyed by the dialect adapter: a Kysely instance and its transactions share it.
  const compiled = new WeakMap<object, CompiledQuery<Row>>();
  // Not async: the direct path answers at once, without a promise; callers await either.
  return (db, params) => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (!query) {
      query = build(db, slots as Params).compile();
      compiled.set(adapter, query);
    }
    const values = params as Record<string, unknown>;
    const parameters = query.parameters.map((value) =>
      value instanceof Slot ? values[value.name] : value,
    );
    const direct = directConnections.get(adapter);
    if (direct && (db.isTransaction || !direct.inTransaction)) {
      const statement = direct.prepare(query.sql);
      if (statement.reader) return statement.all(parameters) as Row[];
      statement.run(parameters);
      return [];
    }
    return db.executeQuery<Row>({ ...query, parameters }).then((result) => result.rows);
  };
}
