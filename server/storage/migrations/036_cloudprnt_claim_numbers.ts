import type { MigrationDb } from './helpers.ts';

/**
 * How many claims a Star CloudPRNT printer has made (docs/cloudprnt.md, "The job token"): the
 * poll hands the printer the number of its next claim as CloudPRNT's `jobToken`, and its GET
 * and DELETE, which send it back, act only on the claim that number names. Kept when the
 * claim ends, so that an old token is never taken for a new claim.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('cloudprnt_printers')
    .addColumn('claims', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}
