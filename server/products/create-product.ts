import { toCents } from '../../shared/money.ts';
import type { ProductInput, ProductRecord } from '../../shared/products.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import {
  assertCategoriesExist,
  assertCodeFree,
  assertComponentsValid,
  codeRaceAsTaken,
} from './checks.ts';
import { columnsOf } from './product-columns.ts';
import { replaceCategories, replaceComponents, replaceImageRows } from './product-lists.ts';
import { readProduct } from './read-product.ts';

/** A new product with its categories, images and assembly; its code must be free. */
export async function createProduct(
  storage: Storage,
  db: Db,
  companyId: number,
  input: ProductInput,
  now: Date,
): Promise<ProductRecord> {
  return storage
    .transaction(db, async (trx) => {
      await assertCodeFree(trx, companyId, input.code);
      await assertCategoriesExist(trx, companyId, input.categories ?? []);
      if (input.assembly) await assertComponentsValid(trx, companyId, undefined, input.assembly);
      const stamp = isoNow(now);
      const row = await trx
        .insertInto('products')
        .values({
          company_id: companyId,
          ncm: null,
          ...columnsOf(input),
          code: input.code,
          name: input.name,
          unit: input.unit,
          price_cents: toCents(input.price),
          manage_stock: input.manage_stock ? 1 : 0,
          type: input.type ?? 'SIMPLE',
          condition: input.condition ?? 'NOT_SPECIFIED',
          created_at: stamp,
          updated_at: stamp,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await replaceCategories(trx, row.id, input.categories ?? []);
      await replaceImageRows(trx, row.id, input.images ?? []);
      await replaceComponents(trx, row.id, input.assembly ?? null);
      return readProduct(trx, companyId, { id: row.id });
    })
    .catch(codeRaceAsTaken);
}
