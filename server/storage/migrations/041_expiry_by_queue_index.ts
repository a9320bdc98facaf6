import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * The index of queued jobs by `expires_at` goes: since every job carries an expiry (the hold
 * limit, 24 h by default), each took an entry at its create and gave it back at its claim.
 * The sweep that expires jobs now reads the queue's partial index (every queued job) as the
 * held notice does (migration 039): every 5 s, over the jobs queued now, a few on an
 * ordinary day and some thousands in an outage (milliseconds either way). Side by side on the
 * queue (bench/printing.ts --against the commit before): docs/benchmarks.md.
 *
 * `print_jobs_company` (company_id, and so the row id after it) stays: the console's jobs
 * page and `GET /printing/history` read a company's newest jobs in id order from it and stop
 * at the page's last row (test/console/console-jobs.test.ts).
 */
export async function up(db: MigrationDb): Promise<void> {
  await sql`drop index print_jobs_expiry`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`create index print_jobs_expiry on print_jobs (expires_at) where status = 'queued' and expires_at is not null`.execute(
    db,
  );
}
