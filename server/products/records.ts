import type { Selectable } from 'kysely';
import { fromCents } from '../../shared/money.ts';
import type { ImageRecord, ProductRecord } from '../../shared/products.ts';
import { fromMilli } from '../../shared/quantity.ts';
import { readBalances, toProductStock } from '../stock/index.ts';
import type { Db } from '../storage/db.ts';
import type { ProductTables } from '../storage/tables/products.ts';

export type ProductRow = Selectable<ProductTables['products']>;

/** Rows to records: categories, images, components and stock in one query each. */
export async function toProductRecords(
  db: Db,
  companyId: number,
  rows: ProductRow[],
): Promise<ProductRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const [categories, images, components, balances] = await Promise.all([
    db
      .selectFrom('product_categories')
      .select(['product_id', 'category_id'])
      .where('product_id', 'in', ids)
      .orderBy('category_id')
      .execute(),
    db
      .selectFrom('product_images')
      .selectAll()
      .where('product_id', 'in', ids)
      .orderBy('product_id')
      .orderBy('position')
      .execute(),
    db
      .selectFrom('product_components as pc')
      .innerJoin('products as p', 'p.id', 'pc.component_id')
      .select(['pc.assembly_id', 'pc.component_id', 'pc.quantity_milli', 'p.code', 'p.name'])
      .where('pc.assembly_id', 'in', ids)
      .orderBy('pc.assembly_id')
      .orderBy('pc.position')
      .execute(),
    readBalances(
      db,
      companyId,
      rows.filter((row) => Boolean(row.manage_stock)).map((row) => row.id),
    ),
  ]);
  const categoriesOf = Map.groupBy(categories, (c) => c.product_id);
  const imagesOf = Map.groupBy(images, (i) => i.product_id);
  const componentsOf = Map.groupBy(components, (c) => c.assembly_id);
  return rows.map((row) => ({
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    condition: row.condition,
    unit: row.unit,
    price: fromCents(Number(row.price_cents)),
    ncm: row.ncm,
    manage_stock: Boolean(row.manage_stock),
    categories: (categoriesOf.get(row.id) ?? []).map((c) => c.category_id),
    images: (imagesOf.get(row.id) ?? []).map(toImageRecord),
    assembly:
      row.type === 'ASSEMBLY'
        ? {
            components: (componentsOf.get(row.id) ?? []).map((c) => ({
              product_id: c.component_id,
              code: c.code,
              name: c.name,
              quantity: fromMilli(Number(c.quantity_milli)),
            })),
          }
        : null,
    stock: row.manage_stock ? toProductStock(balances.get(row.id) ?? []) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }));
}

export function toImageRecord(row: Selectable<ProductTables['product_images']>): ImageRecord {
  return { id: row.id, url: row.url, alt_text: row.alt_text, position: row.position };
}
