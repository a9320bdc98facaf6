import type PgModule from 'pg';
import { isPlanChanged } from './connection-loss.ts';

/**
 * PostgreSQL named statements for the queries compiled once (`prepared.ts`): each pooled
 * connection parses and plans such a text once, then runs it with new parameters, where an
 * unnamed statement is planned at every run. Planning was half of the print queue's claim
 * in the database (`npm run bench -- --postgres`). `pg` prepares a name on a connection the first time
 * it is used there.
 *
 * A migration run by another instance can change what a statement returns; PostgreSQL then
 * refuses the plan it kept ("cached plan must not change result type", 0A000). The text is
 * then given a new name, which every connection prepares afresh, and the statement is run
 * again once: outside a transaction that retry succeeds; inside one, which the error has
 * aborted, the request answers 503 `unavailable` (retry it; once per statement after such a
 * migration).
 */
const names = new Map<string, string>();
let counter = 0;

const newName = () => `shopdesk_${++counter}`;

/**
 * The name a statement starting with `prefix` runs under now, if it has one (tests: a
 * named statement's later runs send the name, not the text).
 */
export function statementNameOf(prefix: string): string | undefined {
  for (const [text, name] of names) if (text.startsWith(prefix)) return name;
  return undefined;
}

/** Makes `text` (a query compiled once, for PostgreSQL) run as a named statement. */
export function nameStatement(text: string): void {
  if (!names.has(text)) names.set(text, newName());
}

type Query = (config: unknown, values?: unknown, ...rest: unknown[]) => Promise<unknown>;

/** Runs the named texts of `client` (a new pooled connection) as named statements. */
export function runNamedStatements(client: PgModule.PoolClient): void {
  // Looked up at each call, not kept: whatever wraps the class's own `query` later (a test's
  // or the bench's counter of statements) still sees every statement.
  const query: Query = (config, values, ...rest) =>
    (Object.getPrototypeOf(client) as { query: Query }).query.call(client, config, values, ...rest);
  const named: Query = (config, values, ...rest) => {
    // A call with a callback (`pool.query`, which the rate limits' counters use) or in any
    // other form goes to `pg` as it came, callback and all.
    if (rest.length > 0 || typeof values === 'function') return query(config, values, ...rest);
    const name =
      typeof config === 'string' && Array.isArray(values) ? names.get(config) : undefined;
    if (name === undefined) return query(config, values);
    return query({ name, text: config, values }).catch((error: unknown) => {
      if (!isPlanChanged(error)) throw error;
      if (names.get(config as string) === name) names.set(config as string, newName());
      const renamed = { name: names.get(config as string), text: config, values };
      // Inside a transaction the error has aborted it: the request is to be retried whole
      // (503, `Retry-After`: `isTransient`), and the new name will serve it.
      return query(renamed).catch((again: unknown) => {
        throw (again as { code?: string }).code === '25P02' ? error : again;
      });
    });
  };
  (client as unknown as { query: Query }).query = named;
}
