import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type PgModule from 'pg';
import { isPlanChanged } from './connection-loss.ts';

/**
 * PostgreSQL named statements for the queries compiled once (`prepared.ts`): each pooled
 * connection parses and plans such a text once, then runs it with new parameters, where an
 * unnamed statement is planned at every run. Planning was half of the print queue's claim
 * in the database (`npm run bench -- --postgres`). `pg` prepares a name on a connection the
 * first time it is used there: its query config `{ name, text, values }`, public API.
 *
 * Kysely calls `client.query(text, values)` on the clients its pool hands out; this adapter
 * is that pool (Kysely's `PostgresPool` interface): it hands out each of `pg`'s clients
 * inside a small client of its own whose `query` sends a named text as `{ name, text,
 * values }`. Nothing of `pg` is replaced; the pool itself stays `pg`'s.
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

type QueryResult = PostgresQueryResult<unknown>;

/** Runs `text` on `client`: by name when it has one, as it is otherwise. */
function runText(
  client: PgModule.PoolClient,
  text: string,
  values: readonly unknown[],
): Promise<QueryResult> {
  const name = names.get(text);
  const run = (config: PgModule.QueryConfig) => client.query(config) as Promise<QueryResult>;
  if (name === undefined) return run({ text, values: [...values] });
  return run({ name, text, values: [...values] }).catch((error: unknown) => {
    if (!isPlanChanged(error)) throw error;
    if (names.get(text) === name) names.set(text, newName());
    // Inside a transaction the error has aborted it: the request is to be retried whole
    // (503, `Retry-After`: `isTransient`), and the new name will serve it.
    return run({ name: names.get(text), text, values: [...values] }).catch((again: unknown) => {
      throw (again as { code?: string }).code === '25P02' ? error : again;
    });
  });
}

/** What Kysely holds of a pooled connection: `pg`'s client, its texts sent by name. */
class NamedStatementClient {
  readonly #client: PgModule.PoolClient;

  constructor(client: PgModule.PoolClient) {
    this.#client = client;
  }

  /** Kysely reads the backend's id to cancel a query (`pg`'s `processID`). */
  get processID(): number | undefined {
    return (this.#client as { processID?: number }).processID;
  }

  query(textOrCursor: string | PostgresCursor<unknown>, values?: readonly unknown[]): unknown {
    if (typeof textOrCursor !== 'string') return this.#client.query(textOrCursor as never);
    return runText(this.#client, textOrCursor, values ?? []);
  }

  release(destroy?: boolean): void {
    this.#client.release(destroy);
  }
}

/**
 * `pool` as Kysely's pool, the named texts run as named statements. One small client per
 * connection, kept as long as the connection: Kysely keeps its own state by client.
 */
export function namedStatementPool(pool: PgModule.Pool): PostgresPool {
  const clients = new WeakMap<PgModule.PoolClient, NamedStatementClient>();
  return {
    // For Kysely's control connection (a query's cancel), as `pg`'s own pool would give it.
    Client: (pool as unknown as { Client?: PostgresPool['Client'] }).Client,
    get options() {
      return pool.options;
    },
    async connect() {
      const client = await pool.connect();
      let named = clients.get(client);
      if (!named) {
        named = new NamedStatementClient(client);
        clients.set(client, named);
      }
      return named as unknown as PostgresPoolClient;
    },
    end: () => pool.end(),
  };
}
