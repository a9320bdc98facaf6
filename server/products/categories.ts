import { FieldErrors, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

export async function createCategory(
  storage: Storage,
  input: { companyId: number; name: string },
  now = new Date(),
): Promise<number> {
  const row = await storage.db
    .insertInto('categories')
    .values({ company_id: input.companyId, name: input.name, created_at: isoNow(now) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The category then holds exactly these products (duplicates count once). */
export async function syncCategory(
  storage: Storage,
  companyId: number,
  categoryId: number,
  productIds: number[],
): Promise<{ category_id: number; product_ids: number[] }> {
  return storage.transaction(async (trx) => {
    let select = trx
      .selectFrom('categories')
      .select('id')
      .where('company_id', '=', companyId)
      .where('id', '=', categoryId);
    // PostgreSQL: one sync of a category at a time. Two at once would both delete the old
    // links and insert their own, and the second insert of a link breaks the primary key.
    if (storage.dialect === 'postgres') select = select.forNoKeyUpdate();
    const category = await select.executeTakeFirst();
    if (!category) throw new NotFound('Category');
    const unique = [...new Set(productIds)];
    if (unique.length > 0) {
      let select = trx
        .selectFrom('products')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', 'in', unique);
      // Their links change too: lock the products, in id order (see `lockProductRow`).
      if (storage.dialect === 'postgres') select = select.orderBy('id').forNoKeyUpdate();
      const found = await select.execute();
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
