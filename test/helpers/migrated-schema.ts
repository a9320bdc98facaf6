import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';

/**
 * The schema every test server starts on, migrated once and copied for each test: a
 * migrated SQLite file copied into a test's folder, and a PostgreSQL database that fresh
 * ones are created from (`create database … template`). Migrating a new database took about
 * 0.3 s on SQLite and 1.3–1.9 s on PostgreSQL on the 2-core machine under the suite's load,
 * and the suite made a few hundred; a copy takes a few milliseconds (SQLite) or about half a
 * second (PostgreSQL). The server still runs its migrations on start, and finds none to do.
 *
 * Both are named by a hash of the migrations (their files and the list in migrate.ts), so a
 * changed migration makes a new one; they are left in place between runs (the SQLite file in
 * the temporary folder, the PostgreSQL database `shopdesk_schema_<hash>`), and when a new
 * one is made the PostgreSQL ones older than the newest eight are dropped. Tests of migrations themselves start on
 * an empty database (`freshDatabase()` without `migrated`).
 */
const storageDir = fileURLToPath(new URL('../../server/storage/', import.meta.url));

export const schemaHash = (() => {
  const hash = createHash('sha256');
  const migrations = join(storageDir, 'migrations');
  for (const file of readdirSync(migrations).sort()) {
    hash.update(file).update(readFileSync(join(migrations, file)));
  }
  hash.update(readFileSync(join(storageDir, 'migrate.ts')));
  return hash.digest('hex').slice(0, 12);
})();

let sqliteFile: Promise<string> | undefined;

/**
 * A SQLite file with every migration applied, to copy (never to open: copies only). Made by
 * whichever test process needs it first and published by a rename, so processes that race
 * to make it each end with a whole file.
 */
export function migratedSqliteFile(): Promise<string> {
  // A failure is not kept: the worker's next test file tries again (modules are shared).
  sqliteFile ??= makeSqliteFile().catch((error: unknown) => {
    sqliteFile = undefined;
    throw error;
  });
  return sqliteFile;
}

async function makeSqliteFile(): Promise<string> {
  const file = join(tmpdir(), `shopdesk-test-schema-${schemaHash}.sqlite`);
  if (existsSync(file)) return file;
  const building = `${file}.${randomBytes(4).toString('hex')}`;
  const storage = openStorage({ kind: 'sqlite', file: ':memory:' });
  try {
    await migrateToLatest(storage);
    // One self-contained file (no WAL beside it): the server sets its journal mode on open.
    await sql`vacuum into ${building}`.execute(storage.db);
  } finally {
    await storage.close();
  }
  renameSync(building, file);
  return file;
}

const templatePrefix = 'shopdesk_schema_';
export const postgresTemplateName = `${templatePrefix}${schemaHash}`;
let postgresTemplate: Promise<string> | undefined;

/**
 * The name of a PostgreSQL database with every migration applied, to create fresh ones
 * from. Made once under an advisory lock (two test processes may ask at once): built under
 * another name, then renamed, so a database of this name is always whole.
 */
export function migratedPostgresTemplate(adminUrl: string): Promise<string> {
  postgresTemplate ??= makePostgresTemplate(adminUrl).catch((error: unknown) => {
    postgresTemplate = undefined;
    throw error;
  });
  return postgresTemplate;
}

async function makePostgresTemplate(adminUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`select pg_advisory_lock(hashtext('${templatePrefix}'))`);
    const exists = await admin.query('select 1 from pg_database where datname = $1', [
      postgresTemplateName,
    ]);
    if (exists.rowCount === 0) {
      const building = `${postgresTemplateName}_building`;
      await admin.query(`drop database if exists ${building} with (force)`);
      await admin.query(`create database ${building}`);
      const url = new URL(adminUrl);
      url.pathname = `/${building}`;
      const storage = openStorage({ kind: 'postgres', url: url.toString() });
      try {
        await migrateToLatest(storage);
      } finally {
        await storage.close();
      }
      // `with (force)`-free: the storage's connections are gone once it is closed, but may
      // still be leaving; a rename waits for none, so wait here.
      await untilNoConnections((sql, values) => admin.query(sql, values), building);
      await admin.query(`alter database ${building} rename to ${postgresTemplateName}`);
      await dropOlderTemplates(admin);
    }
  } finally {
    await admin.query(`select pg_advisory_unlock(hashtext('${templatePrefix}'))`).catch(() => {});
    await admin.end();
  }
  return postgresTemplateName;
}

/** Waits (up to `withinMs`) until no connection to database `name` is left. */
export async function untilNoConnections(
  query: (statement: string, values: unknown[]) => Promise<pg.QueryResult>,
  name: string,
  withinMs = 5000,
): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    const left = await query('select count(*)::int as n from pg_stat_activity where datname = $1', [
      name,
    ]);
    if (left.rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Templates of older migrations (best effort), all but the newest few: several checkouts of
 * the repository (worktrees, CI's clone) may share one PostgreSQL server, each with its own
 * migrations, and dropping every other template broke their runs under way ("template
 * database … does not exist").
 */
async function dropOlderTemplates(admin: pg.Client): Promise<void> {
  const older = await admin.query<{ datname: string }>(
    "select datname from pg_database where datname like 'shopdesk\\_schema\\_%' and datname <> $1 order by oid desc offset 7",
    [postgresTemplateName],
  );
  for (const { datname } of older.rows) {
    await admin.query(`drop database if exists ${datname} with (force)`).catch(() => {});
  }
}
