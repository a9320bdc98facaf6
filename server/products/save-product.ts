import { toCents } from '../../shared/money.ts';
import type {
  ProductInput,
  ProductPatch,
  ProductRecord,
  ProductType,
} from '../../shared/products.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import {
  assertCategoriesExist,
  assertCodeFree,
  assertComponentsValid,
  codeRaceAsTaken,
  patchedAssembly,
} from './checks.ts';
import { lockProductRow } from './lock-product.ts';
import { replaceCategories, replaceComponents, replaceImageRows } from './product-lists.ts';
import { getProduct } from './read-products.ts';
import type { ProductRow } from './records.ts';

function columnsOf(input: ProductPatch) {
  const columns: Partial<Omit<ProductRow, 'id' | 'company_id' | 'created_at'>> = {};
  if (input.code !== undefined) columns.code = input.code;
  if (input.name !== undefined) columns.name = input.name;
  if (input.type !== undefined) columns.type = input.type;
  if (input.condition !== undefined) columns.condition = input.condition;
  if (input.unit !== undefined) columns.unit = input.unit;
  if (input.price !== undefined) columns.price_cents = toCents(input.price);
  if (input.ncm !== undefined) columns.ncm = input.ncm;
  // Numbers, not booleans: SQLite binds no booleans and PostgreSQL reads '1' as true.
  if (input.manage_stock !== undefined) columns.manage_stock = input.manage_stock ? 1 : 0;
  return columns;
}

export async function createProduct(
  storage: Storage,
  companyId: number,
  input: ProductInput,
  now: Date,
): Promise<ProductRecord> {
  return storage
    .transaction(async (trx) => {
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
      return getProduct(trx, companyId, { id: row.id });
    })
    .catch(codeRaceAsTaken);
}

/**
 * PUT replaces every field (left-out optional fields go back to their defaults, lists to
 * empty); PATCH changes what is sent. The assembly rule is checked on the result: a PATCH
 * that turns a product into an ASSEMBLY must send `assembly`; one that turns it into
 * another type drops its components.
 */
export async function updateProduct(
  storage: Storage,
  companyId: number,
  id: number,
  input: ProductPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<ProductRecord> {
  return storage
    .transaction(async (trx) => {
      const existing = await lockProductRow(trx, storage.dialect, companyId, id);
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
      return getProduct(trx, companyId, { id });
    })
    .catch(codeRaceAsTaken);
}
