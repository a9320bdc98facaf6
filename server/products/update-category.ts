import { FieldErrors, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockRows } from '../storage/locks.ts';

/** The category then holds exactly these products (duplicates count once). */
export async function updateCategoryProducts(
  storage: Storage,
  db: Db,
  companyId: number,
  categoryId: number,
  productIds: number[],
): Promise<{ category_id: number; product_ids: number[] }> {
  return storage.transaction(db, async (trx) => {
    const select = trx
      .selectFrom('categories')
      .select('id')
      .where('company_id', '=', companyId)
      .where('id', '=', categoryId);
    // One update of a category's products at a time (PostgreSQL). Two at once would both
    // delete the old links and insert their own, and the second insert of a link breaks
    // the primary key.
    const category = await lockRows(trx, select, 'no key update').executeTakeFirst();
    if (!category) throw new NotFound('Category');
    const unique = [...new Set(productIds)];
    if (unique.length > 0) {
      const select = trx
        .selectFrom('products')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', 'in', unique)
        .orderBy('id');
      // Their links change too: lock the products, in id order (see `lockProductRow`).
      const found = await lockRows(trx, select, 'no key update').execute();
      const errors = new FieldErrors();
      const known = new Set(found.map((row) => row.id));
      errors.unknownIds(productIds, known, (index) => `product_ids.${index}`);
      errors.throwIfAny();
    }
    await trx.deleteFrom('product_categories').where('category_id', '=', categoryId).execute();
    if (unique.length > 0) {
      await trx
        .insertInto('product_categories')
        .values(unique.map((product_id) => ({ product_id, category_id: categoryId })))
        .execute();
    }
    return { category_id: categoryId, product_ids: unique };
  });
}
