import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratedPostgresTemplate, untilNoConnections } from './migrated-schema.ts';
import { requireService } from './services.ts';

/**
 * A fresh PostgreSQL database for one test file, on the server named by `SHOPDESK_TEST_PG`
 * (default: 127.0.0.1:5432, trust auth, user postgres). `drop()` removes it, connections and
 * all. Without a PostgreSQL to reach, the test is skipped with a line saying so (or fails
 * with it in CI: test/helpers/services.ts).
 */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

/** The server's maintenance database, for tests that talk to the server itself. */
export const adminUrl = process.env.SHOPDESK_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test';

async function admin(statement: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(statement, values);
  } finally {
    await client.end();
  }
}

/**
 * A closed pool has asked its connections to end, but they may still be closing: `drop ...
 * with (force)` would terminate them, and a pg client being ended raises that as an
 * uncaught error in the test process. So wait (up to 2 s) for them to leave first.
 */
function connectionsGone(name: string): Promise<void> {
  return untilNoConnections(admin, name, 2000);
}

/**
 * `migrated`: with every migration applied (a copy of test/helpers/migrated-schema.ts's
 * template, what a server would make of it on start); else empty, for tests of migrations.
 */
export async function freshDatabase({ migrated = false } = {}): Promise<FreshDatabase> {
  await requireService('postgres');
  const name = `shopdesk_t_${randomBytes(6).toString('hex')}`;
  const template = migrated ? ` template ${await migratedPostgresTemplate(adminUrl)}` : '';
  await admin(`create database ${name}${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await connectionsGone(name);
      await admin(`drop database if exists ${name} with (force)`);
    },
  };
}
