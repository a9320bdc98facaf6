import { sql } from 'kysely';
import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * SQLite drops the index of job events by company (migration 026): its entry in every event
 * cost ~8 % of the queue's CPU a claimed and confirmed job (bench/printing.ts, side by side
 * with and without it: 0.92x). The console's live marks, which read a company's newest event
 * by it, follow that id from the events written since their last read instead
 * (server/printing/store/sqlite/newest-events.ts), which SQLite's one writer, committing ids
 * in order, allows. PostgreSQL keeps it: its instances commit events out of id order.
 */
export async function up(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop index print_job_events_company_id`.execute(db);
}

export async function down(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema
    .createIndex('print_job_events_company_id')
    .on('print_job_events')
    .columns(['company_id', 'id'])
    .execute();
}
