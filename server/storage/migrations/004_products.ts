import { type MigrationDb, withId } from './helpers.ts';

/** Products, their category links, images and assembly components. */
export async function up(db: MigrationDb): Promise<void> {
  await withId(db, db.schema.createTable('products'))
    .addColumn('company_id', 'integer', (c) => c.notNull().references('companies.id'))
    .addColumn('code', 'varchar(100)', (c) => c.notNull())
    .addColumn('name', 'varchar(255)', (c) => c.notNull())
    .addColumn('type', 'varchar(16)', (c) => c.notNull())
    .addColumn('condition', 'varchar(16)', (c) => c.notNull())
    .addColumn('unit', 'varchar(10)', (c) => c.notNull())
    .addColumn('price_cents', 'bigint', (c) => c.notNull())
    .addColumn('ncm', 'varchar(8)')
    .addColumn('manage_stock', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('products_company_code')
    .on('products')
    .columns(['company_id', 'code'])
    .unique()
    .execute();

  await db.schema
    .createTable('product_categories')
    .addColumn('product_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('category_id', 'integer', (c) =>
      c.notNull().references('categories.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('product_categories_pk', ['product_id', 'category_id'])
    .execute();
  await db.schema
    .createIndex('product_categories_category')
    .on('product_categories')
    .column('category_id')
    .execute();

  await withId(db, db.schema.createTable('product_images'))
    .addColumn('product_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('url', 'varchar(2048)', (c) => c.notNull())
    .addColumn('alt_text', 'varchar(255)')
    .execute();
  await db.schema
    .createIndex('product_images_product')
    .on('product_images')
    .column('product_id')
    .execute();

  // A component row says: one `assembly_id` uses `quantity_milli` thousandths of `component_id`.
  await db.schema
    .createTable('product_components')
    .addColumn('assembly_id', 'integer', (c) =>
      c.notNull().references('products.id').onDelete('cascade'),
    )
    .addColumn('component_id', 'integer', (c) => c.notNull().references('products.id'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_components_pk', ['assembly_id', 'component_id'])
    .execute();
  await db.schema
    .createIndex('product_components_component')
    .on('product_components')
    .column('component_id')
    .execute();
}
