import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * When the sweep announced that a queued job has waited past the notice threshold
 * (`print_job.held`, once per wait: cleared when the job is queued again), and the partial
 * index the sweep finds such jobs by: queued, not yet announced, by the time they were queued
 * (`updated_at`). A job leaves it when claimed or announced (docs/printing.md, "Hold limit").
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('print_jobs').addColumn('held_noticed_at', 'varchar(32)').execute();
  await sql`create index print_jobs_held on print_jobs (updated_at) where status = 'queued' and held_noticed_at is null`.execute(
    db,
  );
}
