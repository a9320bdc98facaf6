import { type MigrationDb, withId } from './helpers.ts';

/** Stock: locations inside warehouses, lots of products, balances and their movements. */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('stock_locations'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('warehouse_id', 'integer', (c) => c.notNull().references('warehouses.id'))
    .addColumn('code', 'varchar(50)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('stock_locations_warehouse_code')
    .on('stock_locations')
    .columns(['warehouse_id', 'code'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('stock_lots'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('product_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('number', 'varchar(100)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('stock_lots_product_number')
    .on('stock_lots')
    .columns(['product_id', 'number'])
    .unique()
    .execute();

  // location_id and lot_id are 0 when the balance has none: a NULL would never collide in
  // the unique index, and the upsert of a balance needs it to.
  await withId(db, db.schema.createTable('stock_balances'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('product_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('warehouse_id', 'integer', (c) => c.notNull().references('warehouses.id'))
    .addColumn('location_id', 'integer', (c) => c.notNull())
    .addColumn('lot_id', 'integer', (c) => c.notNull())
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('stock_balances_slot')
    .on('stock_balances')
    .columns(['product_id', 'warehouse_id', 'location_id', 'lot_id'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('stock_movements'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('product_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('warehouse_id', 'integer', (c) => c.notNull().references('warehouses.id'))
    .addColumn('location_id', 'integer', (c) => c.notNull())
    .addColumn('lot_id', 'integer', (c) => c.notNull())
    .addColumn('before_milli', 'bigint', (c) => c.notNull())
    .addColumn('after_milli', 'bigint', (c) => c.notNull())
    .addColumn('observation', 'varchar(1000)')
    .addColumn('token_id', 'integer')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('stock_movements_product')
    .on('stock_movements')
    .columns(['product_id', 'id'])
    .execute();
}
