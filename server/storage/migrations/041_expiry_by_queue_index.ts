import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * Two indexes of print_jobs that every job paid for and no read needs:
 * - `print_jobs_expiry` (queued jobs by `expires_at`): since every job carries an expiry (the
 *   hold limit, 24 h by default), each took an entry at its create and gave it back at its
 *   claim. The sweep that expires jobs now reads the queue's partial index (every queued job)
 *   as the held notice does (migration 039): every 5 s, over the jobs queued now, a few on an
 *   ordinary day and some thousands in an outage (milliseconds either way).
 * - `print_jobs_company` (company_id): the indexes by company and status, and by company and
 *   creation time, begin with the same column and serve every read it served.
 * Side by side on the queue (bench/printing.ts --against the commit before): docs/benchmarks.md.
 */
export async function up(db: MigrationDb): Promise<void> {
  await sql`drop index print_jobs_expiry`.execute(db);
  await sql`drop index print_jobs_company`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`create index print_jobs_expiry on print_jobs (expires_at) where status = 'queued' and expires_at is not null`.execute(
    db,
  );
  await db.schema.createIndex('print_jobs_company').on('print_jobs').column('company_id').execute();
}
