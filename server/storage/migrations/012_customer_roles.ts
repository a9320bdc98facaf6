import { sql } from 'kysely';
import type { MigrationDb } from './helpers.ts';

/**
 * What a contact is to the company (docs/customers.md): a customer, a supplier or both, one
 * column per role of the closed list (shared/customers.ts `customerRoles`), so the list
 * filter is a plain comparison in both dialects. Existing contacts are customers. The check
 * keeps at least one role, as the API does.
 */
export async function up(db: MigrationDb): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('is_customer', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  // SQLite adds no table constraint to an existing table; a column's check may name the other
  // column, in both dialects.
  await db.schema
    .alterTable('customers')
    .addColumn('is_supplier', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(
          sql`is_customer in (0, 1) and is_supplier in (0, 1) and (is_customer = 1 or is_supplier = 1)`,
        ),
    )
    .execute();
  await db.schema
    .createIndex('customers_company_supplier')
    .on('customers')
    .columns(['company_id', 'is_supplier'])
    .execute();
}
