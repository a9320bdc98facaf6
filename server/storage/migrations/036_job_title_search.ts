import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * The console's job search (`lower(title) like '%…%'`, server/console/read-console-jobs.ts)
 * through an index on PostgreSQL: a trigram index (`pg_trgm`) of the lower-cased titles.
 * Without it a word few jobs have reads every title of the company (100,000 titles: tens
 * of ms, hundreds under load); with it, under a millisecond (measured on PostgreSQL 15 with
 * 100,000 titles: 0.6 ms for a word none has, 2.8 ms for one title; 32 ms for a word a few
 * thousand have, which the planner then reads newest first instead).
 *
 * `pg_trgm` ships with PostgreSQL and is a trusted extension (13 and later): anyone who may
 * create objects in the database may create it. Where it cannot be created (an older server
 * or a role without that right), the migration leaves the index out, in a savepoint so the
 * rest of the migration stands, and search reads the titles as on SQLite.
 *
 * SQLite has none: its scan of 100,000 titles measured 33–39 ms at p50 on the loaded bench
 * machine (docs/benchmarks.md), and an FTS5 table would need its own query.
 */
export async function up(db: MigrationDb): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`savepoint job_title_search`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`release savepoint job_title_search`.execute(db);
  } catch {
    await sql`rollback to savepoint job_title_search`.execute(db);
    return;
  }
  await sql`create index print_jobs_title_search on print_jobs using gin (lower(title) gin_trgm_ops)`.execute(
    db,
  );
}

export async function down(db: MigrationDb): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop index if exists print_jobs_title_search`.execute(db);
}
