import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { type Db, dialectOf } from './db.ts';

/**
 * Set-based statements whose SQL text does not grow with the number of rows: the rows
 * travel as one JSON parameter. Kysely compiles a 1,000-row VALUES list or IN list anew on
 * every call and SQLite prepares each new text; one fixed text is compiled once, prepared
 * once (the statement cache keeps it) and bound with a single string.
 */

/** `column IN (values)` with the list bound as one parameter. */
export function isAnyOf(
  db: Db,
  column: string,
  values: readonly (number | string)[],
): Expression<SqlBool> {
  if (dialectOf(db) === 'postgres') return sql<SqlBool>`${sql.ref(column)} = any(${values})`;
  return sql<SqlBool>`${sql.ref(column)} in (select value from json_each(${JSON.stringify(values)}))`;
}

export type JsonColumnType = 'integer' | 'bigint' | 'text';

/**
 * A derived table of `rows` (arrays, one value per column, in `columns` order), to write
 * `insert into t (...) select ... from ${jsonTable(...)} as j`.
 */
export function jsonTable(
  db: Db,
  columns: readonly (readonly [name: string, type: JsonColumnType])[],
  rows: readonly (readonly unknown[])[],
): RawBuilder<unknown> {
  const json = JSON.stringify(rows);
  if (dialectOf(db) === 'postgres') {
    const list = sql.join(
      columns.map(([name, type], index) =>
        type === 'text'
          ? sql`(e->>${sql.lit(index)}) as ${sql.ref(name)}`
          : sql`(e->>${sql.lit(index)})::${sql.raw(type)} as ${sql.ref(name)}`,
      ),
    );
    return sql`(select ${list} from jsonb_array_elements(${json}::jsonb) as e)`;
  }
  const list = sql.join(
    columns.map(
      ([name], index) => sql`json_extract(value, ${sql.lit(`$[${index}]`)}) as ${sql.ref(name)}`,
    ),
  );
  return sql`(select ${list} from json_each(${json}))`;
}
