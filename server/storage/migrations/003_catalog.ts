import { type MigrationDb, withId } from './helpers.ts';

/** Warehouses and categories: created by the operator CLI, used by products and stock. */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('warehouses'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('code', 'varchar(20)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('warehouses_company_code')
    .on('warehouses')
    .columns(['company_id', 'code'])
    .unique()
    .execute();

  await withId(db, db.schema.createTable('categories'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('categories_company').on('categories').column('company_id').execute();
}
