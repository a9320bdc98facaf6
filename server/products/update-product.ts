import type { ProductPatch, ProductRecord, ProductType } from '../../shared/products.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import {
  assertCategoriesExist,
  assertCodeFree,
  assertComponentsValid,
  codeRaceAsTaken,
  patchedAssembly,
} from './checks.ts';
import { lockProductRow } from './lock-product.ts';
import { columnsOf } from './product-columns.ts';
import { replaceCategories, replaceComponents, replaceImageRows } from './product-lists.ts';
import { readProduct } from './read-product.ts';

/**
 * PUT replaces every field (left-out optional fields go back to their defaults, lists to
 * empty); PATCH changes what is sent. The assembly rule is checked on the result: a PATCH
 * that turns a product into an ASSEMBLY must send `assembly`; one that turns it into
 * another type drops its components.
 */
export async function updateProduct(
  storage: Storage,
  db: Db,
  companyId: number,
  id: number,
  input: ProductPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<ProductRecord> {
  return storage
    .transaction(db, async (trx) => {
      const existing = await lockProductRow(trx, companyId, id);
      if (input.code !== undefined) await assertCodeFree(trx, companyId, input.code, id);
      if (input.categories) await assertCategoriesExist(trx, companyId, input.categories);
      const type: ProductType = input.type ?? (mode === 'replace' ? 'SIMPLE' : existing.type);
      const assembly =
        mode === 'patch' ? patchedAssembly(type, existing.type, input.assembly) : input.assembly;
      if (assembly) await assertComponentsValid(trx, companyId, id, assembly);
      const defaults =
        mode === 'replace'
          ? { ncm: null, type: 'SIMPLE' as const, condition: 'NOT_SPECIFIED' as const }
          : {};
      await trx
        .updateTable('products')
        .set({ ...defaults, ...columnsOf(input), updated_at: isoNow(now) })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .execute();
      const categories = input.categories ?? (mode === 'replace' ? [] : undefined);
      if (categories) await replaceCategories(trx, id, categories);
      const images = input.images ?? (mode === 'replace' ? [] : undefined);
      if (images) await replaceImageRows(trx, id, images);
      if (assembly !== undefined || mode === 'replace') {
        await replaceComponents(trx, id, assembly ?? null);
      }
      return readProduct(trx, companyId, { id });
    })
    .catch(codeRaceAsTaken);
}
