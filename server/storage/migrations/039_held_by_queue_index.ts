import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * The held-job notice (docs/printing.md, "Hold limit") finds its jobs through the queue's own
 * partial index (`print_jobs_queue`, every queued job) instead of one of its own: that index
 * took an entry at every create and gave it back at every claim, ~2–8 % of the queue's CPU a
 * claimed and confirmed job (bench/printing.ts, side by side with and without it), for a
 * sweep that runs every 5 s over the jobs queued now, a few in a shop's ordinary day and some
 * thousands in an outage (milliseconds either way).
 */
export async function up(db: MigrationDb): Promise<void> {
  await sql`drop index print_jobs_held`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  await sql`create index print_jobs_held on print_jobs (updated_at) where status = 'queued' and held_noticed_at is null`.execute(
    db,
  );
}
