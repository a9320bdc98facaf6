import { type FreshDatabase, freshDatabase } from './postgres.ts';
import { startTestServer, type TestServer } from './server.ts';

/** The databases every test of keys runs on. */
export const dialects = ['sqlite', 'postgres'] as const;
export type TestDialect = (typeof dialects)[number];

/**
 * Two server instances of one database: on PostgreSQL two real instances of one fresh
 * database; on SQLite, which has one server process, the same instance twice.
 */
export interface Instances {
  one: TestServer;
  two: TestServer;
  /** PostgreSQL: the fresh database both serve (for a third instance, or the CLI). */
  databaseUrl?: string;
  close(): Promise<void>;
}

export async function startInstances(
  dialect: TestDialect,
  options: Omit<NonNullable<Parameters<typeof startTestServer>[0]>, 'database' | 'dbFile'> = {},
): Promise<Instances> {
  if (dialect === 'sqlite') {
    const one = await startTestServer(options);
    return { one, two: one, close: () => one.close() };
  }
  const database: FreshDatabase = await freshDatabase({ migrated: true });
  const target = { kind: 'postgres', url: database.url } as const;
  const [one, two] = await Promise.all([
    startTestServer({ ...options, database: target }),
    startTestServer({ ...options, database: target }),
  ]);
  return {
    one,
    two,
    databaseUrl: database.url,
    async close() {
      await one.close();
      await two.close();
      await database.drop();
    },
  };
}

/** How many keys the database holds (all companies). */
export async function keyCount(server: TestServer): Promise<number> {
  const row = await server.app.services.storage.db
    .selectFrom('idempotency_keys')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
