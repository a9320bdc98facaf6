import type { MigrationDb } from './helpers.ts';

/**
 * A printer that cannot print, one row per agent and printer while it lasts (an episode):
 * why (`code`, `message`), since when the sweep first saw it, and when `printer.attention`
 * was sent (null until the episode has lasted the threshold). The unique key is what makes
 * the episode one across instances: the row is inserted once, `notified_at` set by one
 * conditional UPDATE, and the row deleted by one DELETE when the printer recovers
 * (docs/webhooks.md, "Printer attention").
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .createTable('printer_attention')
    .addColumn('company_id', 'integer', (col) => col.notNull())
    .addColumn('agent_id', 'integer', (col) => col.notNull())
    .addColumn('printer', 'varchar(255)', (col) => col.notNull())
    .addColumn('code', 'varchar(64)', (col) => col.notNull())
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('since', 'varchar(32)', (col) => col.notNull())
    .addColumn('notified_at', 'varchar(32)')
    .addPrimaryKeyConstraint('printer_attention_pk', ['agent_id', 'printer'])
    .execute();
}
