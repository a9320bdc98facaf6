import { type MigrationDb, withId } from './helpers.ts';

/**
 * Printers that poll ShopDesk themselves (Star CloudPRNT), one row each: the print agent that
 * stands for it in the queue (`agent_uuid`), the HTTP basic credentials typed into the printer
 * (`username`, and `password_hash`, sha256 of a 32-byte random secret: never the password), what
 * its client actions taught (`capabilities`, JSON), the claim it holds between its GET and its
 * DELETE (`job_token`), and when it was revoked (docs/cloudprnt.md).
 */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('cloudprnt_printers'))
    .addColumn('company_id', 'integer', (col) => col.notNull())
    .addColumn('agent_uuid', 'varchar(36)', (col) => col.notNull().unique())
    .addColumn('route', 'varchar(64)', (col) => col.notNull())
    .addColumn('username', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('password_hash', 'varchar(64)', (col) => col.notNull())
    .addColumn('capabilities', 'text', (col) => col.notNull().defaultTo('{}'))
    .addColumn('job_token', 'varchar(64)')
    .addColumn('created_at', 'varchar(32)', (col) => col.notNull())
    .addColumn('revoked_at', 'varchar(32)')
    .execute();
}
