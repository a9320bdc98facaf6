import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Stands, in a query compiled once, for the argument a call gives at run time. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A query built and compiled once per dialect, then run with each call's arguments.
 * Building and compiling a Kysely query costs more than running an SQLite point read, and
 * hot paths (reading a customer) would pay it on every request.
 *
 * `build` gets placeholders in place of its arguments, so it must use each one only as a
 * value (`where('id', '=', id)`, `values({name})`) and never branch on it: the query's
 * shape must not depend on the arguments. Its declared parameter count is the arity.
 */
// biome-ignore lint/suspicious/noExplicitAny: the arguments only stand in the query, as values.
export function prepared<Args extends any[], Row>(
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
): (db: Db, ...args: Args) => Promise<Row[]> {
  const slots = Array.from({ length: build.length - 1 }, (_, index) => new Slot(index)) as Args;
  // Keyed by the dialect adapter: a Kysely instance and its transactions share it.
  const compiled = new WeakMap<object, CompiledQuery<Row>>();
  return async (db, ...args) => {
    const adapter = db.getExecutor().adapter;
    let query = compiled.get(adapter);
    if (!query) {
      query = build(db, ...slots).compile();
      compiled.set(adapter, query);
    }
    const parameters = query.parameters.map((value) =>
      value instanceof Slot ? args[value.index] : value,
    );
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}
