import { CompiledQuery, sql } from 'kysely';
import type { DatabaseTarget } from '../../server/config.ts';
import { freshDatabase } from './postgres.ts';
import { startTestServer, type TestServer } from './server.ts';

/** The two databases the server runs on: rules that touch storage are tested on both. */
export const databaseKinds = ['sqlite', 'postgres'] as const;
export type DatabaseKind = (typeof databaseKinds)[number];

/**
 * A real server on a fresh SQLite file, or on a fresh PostgreSQL database that `close()`
 * drops again.
 */
export async function startTestServerOn(
  kind: DatabaseKind,
  options: Omit<NonNullable<Parameters<typeof startTestServer>[0]>, 'database'> = {},
): Promise<TestServer> {
  if (kind === 'sqlite') return startTestServer(options);
  const database = await freshDatabase({ migrated: true });
  const target: DatabaseTarget = { kind: 'postgres', url: database.url };
  const server = await startTestServer({ ...options, database: target }).catch(
    async (error: unknown) => {
      await database.drop();
      throw error;
    },
  );
  const close = server.close.bind(server);
  server.close = async () => {
    await close();
    await database.drop();
  };
  return server;
}

/** The PostgreSQL database a server runs on, for a client of the test's own beside it. */
export function postgresUrlOf(server: TestServer): string {
  const { database } = server.app.services.config;
  if (database.kind !== 'postgres') throw new Error('the server runs on SQLite');
  return database.url;
}

/** The names of the indexes the database holds on `table`, as its own catalogue lists them. */
export async function indexNamesOf(server: TestServer, table: string): Promise<string[]> {
  const { db } = server.app.services.storage;
  const names =
    server.app.services.config.database.kind === 'sqlite'
      ? await sql<{ name: string }>`select name from sqlite_master
          where type = 'index' and tbl_name = ${table}`.execute(db)
      : await sql<{ name: string }>`select indexname as name from pg_indexes
          where tablename = ${table}`.execute(db);
  return names.rows.map((row) => row.name);
}

/**
 * The plan the server's database makes for `query`, as text: SQLite's `EXPLAIN QUERY PLAN`
 * details, PostgreSQL's `EXPLAIN` told not to read a table whole (a test's tables are too
 * small for the planner to prefer an index otherwise).
 */
export async function queryPlanOf(server: TestServer, query: CompiledQuery): Promise<string> {
  const { db } = server.app.services.storage;
  if (server.app.services.config.database.kind === 'sqlite') {
    const rows = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return rows.rows.map((row) => row.detail).join('\n');
  }
  return await db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    try {
      const rows = await connection.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      );
      return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await sql`set enable_seqscan = on`.execute(connection);
    }
  });
}
