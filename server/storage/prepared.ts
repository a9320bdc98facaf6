import type { Compilable, CompiledQuery, Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Stands, in a query compiled once, for the parameter a call gives at run time. */
class Slot {
  constructor(readonly name: string) {}
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
): (db: Db, params: Params) => Promise<Row[]> {
  // Keyed by the dialect adapter: a Kysely instance and its transactions share it.
  const compiled = new WeakMap<object, CompiledQuery<Row>>();
  return async (db, params) => {
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
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}
