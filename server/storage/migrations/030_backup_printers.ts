import type { MigrationDb } from './helpers.ts';

/**
 * A route's backup printers, in order (JSON array of names), or null for none: printers the
 * route prints on while the ones before cannot (docs/agent.md, "Backup printers").
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('print_routes').addColumn('backup_printers', 'text').execute();
}
