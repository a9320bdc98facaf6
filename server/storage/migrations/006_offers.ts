import { type MigrationDb, withId } from './helpers.ts';

/** Offers (quotations to a customer) and their lines. Money in cents, quantities in milli. */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('offers'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id'))
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('valid_until', 'varchar(10)')
    .addColumn('subtotal_cents', 'bigint', (c) => c.notNull())
    .addColumn('discount_cents', 'bigint', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('offers_company')
    .on('offers')
    .columns(['company_id', 'id'])
    .execute();

  // The product's code and name are copied: an offer keeps reading as it was sent even
  // after the product changes or is deleted (then product_id becomes NULL).
  await withId(db, db.schema.createTable('offer_items'))
    .addColumn('offer_id', 'integer', (c) =>
      c.notNull().references('offers.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'integer', (c) => c.references('products.id').onDelete('set null'))
    .addColumn('product_code', 'varchar(100)', (c) => c.notNull())
    .addColumn('product_name', 'varchar(255)', (c) => c.notNull())
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addColumn('unit_price_cents', 'bigint', (c) => c.notNull())
    .addColumn('discount_basis_points', 'integer', (c) => c.notNull())
    .addColumn('total_cents', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('offer_items_offer').on('offer_items').column('offer_id').execute();
}
