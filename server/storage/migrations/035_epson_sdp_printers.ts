import type { MigrationDb } from './helpers.ts';

/**
 * Epson printers on Server Direct Print beside Star's CloudPRNT printers, in the same table
 * (docs/cloudprnt.md): `kind` says which protocol a row speaks (`star`, every row before this
 * one; `epson`), and an Epson row keeps `digest_ha1`, MD5(user:realm:password), what HTTP
 * Digest (RFC 7616) checks a printer's answer with: the printer authenticates by Digest, and
 * the server never sees its password again.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('cloudprnt_printers')
    .addColumn('kind', 'varchar(16)', (col) => col.notNull().defaultTo('star'))
    .execute();
  await db.schema.alterTable('cloudprnt_printers').addColumn('digest_ha1', 'varchar(64)').execute();
}
