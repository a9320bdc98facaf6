import type { MigrationDb } from './helpers.ts';

/**
 * When an Epson printer's status notification (Server Direct Print's `SetStatus`) was last
 * heard, at most once per half heartbeat interval as presence is: while it is recent, the
 * state the printer reports is trusted to hold its print requests back (docs/cloudprnt.md,
 * "Status notification"); once it is old (notifications turned off), print requests are
 * answered as before. Null for a printer that sends none, and for Star's.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema.alterTable('cloudprnt_printers').addColumn('status_at', 'varchar(32)').execute();
}
