import type { CompiledQuery } from 'kysely';
import type { Storage } from '../storage/database.ts';

const markerPrefix = '\u0000reusable:';

/**
 * A query built once and run many times with new values. Building and compiling a query
 * with Kysely costs more than SQLite takes to run the claim itself (the claim's builder is
 * ~100 µs; the statement ~40 µs), and the claim and confirm run thousands of times a
 * second with the same shape. `build` receives `slot(name)` for each value that changes;
 * the query is compiled once per database (the SQL differs between dialects) and `run`
 * puts the values in their places.
 */
export class ReusableQuery<Row, Values extends Record<string, unknown>> {
  private readonly compiled = new WeakMap<
    object,
    { query: CompiledQuery<Row>; slots: (keyof Values | null)[] }
  >();

  private readonly build: (
    storage: Storage,
    slot: <K extends keyof Values & string>(name: K) => Values[K],
  ) => { compile(): CompiledQuery<Row> };

  constructor(
    build: (
      storage: Storage,
      slot: <K extends keyof Values & string>(name: K) => Values[K],
    ) => { compile(): CompiledQuery<Row> },
  ) {
    this.build = build;
  }

  /** The query with these values; run it with `executeQuery` on the db or a transaction. */
  with(storage: Storage, values: Values): CompiledQuery<Row> {
    let entry = this.compiled.get(storage);
    if (!entry) {
      const query = this.build(storage, (name) => `${markerPrefix}${name}` as never).compile();
      const slots = query.parameters.map((parameter) =>
        typeof parameter === 'string' && parameter.startsWith(markerPrefix)
          ? (parameter.slice(markerPrefix.length) as keyof Values)
          : null,
      );
      entry = { query, slots };
      this.compiled.set(storage, entry);
    }
    const { query, slots } = entry;
    return {
      ...query,
      parameters: slots.map((slot, index) =>
        slot === null ? query.parameters[index] : values[slot],
      ),
    };
  }
}
