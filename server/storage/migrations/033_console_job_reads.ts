import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * Two reads the console makes on every live change, in every open page, made indexed.
 *
 * 1. The Overview's jobs of the last 24 hours by state (and the attention banner on every
 *    page reads the same overview; the jobs page's "Created since"): `company_id` and a
 *    `created_at` range. Without an index on the time, each read went through every job of
 *    the company (100,000 in bench/console.ts) to keep a day's worth; with
 *    `(company_id, created_at, status)` it reads the day's entries only, from the index.
 * 2. PostgreSQL only: the jobs page's search (`lower(title) like '%…%'`,
 *    server/printing/jobs/read-console-jobs.ts) through a trigram index (`pg_trgm`) of the
 *    lower-cased titles. Without it a word few jobs have reads every title of the company;
 *    with it, under a millisecond (PostgreSQL 15, 100,000 titles: 0.6 ms for a word none
 *    has, 2.8 ms for one title; for a word most titles have the planner reads newest first
 *    instead). `pg_trgm` ships with PostgreSQL and is a trusted extension from 13 on: anyone
 *    who may create objects in the database may create it. Where it cannot be created, the
 *    index is left out (in a savepoint, so the rest of the migration stands) and search reads
 *    the titles as on SQLite, whose scan of 100,000 titles measured 22–39 ms at p50 on the
 *    loaded bench machine (docs/benchmarks.md); an FTS5 table there would need its own query.
 *
 * Each is one more index entry for every job created.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('print_jobs_company_created')
    .on('print_jobs')
    .columns(['company_id', 'created_at', 'status'])
    .execute();
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
  if (isPostgres(db)) await sql`drop index if exists print_jobs_title_search`.execute(db);
  await db.schema.dropIndex('print_jobs_company_created').execute();
}
