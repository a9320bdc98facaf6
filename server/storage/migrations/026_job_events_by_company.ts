import type { MigrationDb } from './helpers.ts';

/**
 * A company's newest job event, found by one index step: the console's live stream reads it
 * for the company's version (server/console/read-company-version.ts) every 250 ms while the
 * company has pages open. It read the newest event of all companies before, so one company's
 * printing moved every other company's stream.
 *
 * Every job event pays one more index entry. Measured on raw better-sqlite3 (the trail's row,
 * 20,000 inserts, 6 alternating rounds, a box at load average 10): in transactions of 20 rows
 * of one company, median 31 → 38 µs a row with the commit; of 5 rows over 50 companies (more
 * leaves dirtied a commit), ~60 → ~90 µs. `npm run bench` was not run again with it.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createIndex('print_job_events_company_id')
    .on('print_job_events')
    .columns(['company_id', 'id'])
    .execute();
}

export async function down(db: MigrationDb): Promise<void> {
  await db.schema.dropIndex('print_job_events_company_id').execute();
}
