import { type MigrationDb, withId } from './helpers.ts';

export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('customers'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('code', 'varchar(100)')
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('type', 'varchar(1)', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('taxvat', 'varchar(14)')
    .addColumn('telephone', 'varchar(30)')
    .addColumn('mobile', 'varchar(30)')
    .addColumn('email', 'varchar(255)')
    .addColumn('credit_limit_cents', 'bigint')
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  // NULL codes never collide, in both dialects.
  await db.schema
    .createIndex('customers_company_code')
    .on('customers')
    .columns(['company_id', 'code'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customers_company_taxvat')
    .on('customers')
    .columns(['company_id', 'taxvat'])
    .execute();
  await db.schema
    .createIndex('customers_company_updated')
    .on('customers')
    .columns(['company_id', 'updated_at'])
    .execute();

  await withId(db, db.schema.createTable('customer_addresses'))
    .addColumn('customer_id', 'integer', (c) =>
      c.notNull().references('customers.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('zipcode', 'varchar(8)', (c) => c.notNull())
    .addColumn('street', 'varchar(255)', (c) => c.notNull())
    .addColumn('district', 'varchar(255)', (c) => c.notNull())
    .addColumn('city', 'varchar(255)', (c) => c.notNull())
    .addColumn('state', 'varchar(2)', (c) => c.notNull())
    .addColumn('number', 'varchar(100)', (c) => c.notNull())
    .addColumn('complement', 'varchar(255)')
    .execute();
  await db.schema
    .createIndex('customer_addresses_customer')
    .on('customer_addresses')
    .column('customer_id')
    .execute();

  await withId(db, db.schema.createTable('customer_relationships'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('parent_id', 'integer', (c) =>
      c.notNull().references('customers.id').onDelete('cascade'),
    )
    .addColumn('child_id', 'integer', (c) =>
      c.notNull().references('customers.id').onDelete('cascade'),
    )
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_relationships_pair')
    .on('customer_relationships')
    .columns(['parent_id', 'child_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('customer_relationships_child')
    .on('customer_relationships')
    .column('child_id')
    .execute();
}
