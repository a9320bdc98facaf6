import type { AssemblyInput, ProductType } from '../../shared/products.ts';
import { FieldErrors, invalidField } from '../domain-errors.ts';
import { onUniqueViolation } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';

const codeTaken = () => invalidField('code', 'The code has already been taken.');
/** The unique index settles races that `assertCodeFree` cannot see (concurrent writers). */
export const codeRaceAsTaken = onUniqueViolation('products', ['company_id', 'code'], codeTaken);

export async function assertCodeFree(db: Db, companyId: number, code: string, exceptId?: number) {
  let query = db
    .selectFrom('products')
    .select('id')
    .where('company_id', '=', companyId)
    .where('code', '=', code);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  if (await query.executeTakeFirst()) throw codeTaken();
}

export async function assertCategoriesExist(db: Db, companyId: number, ids: number[]) {
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('categories')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
  const errors = new FieldErrors();
  errors.unknownIds(ids, new Set(found.map((row) => row.id)), (index) => `categories.${index}`);
  errors.throwIfAny();
}

/**
 * Components must be products of the company, and no product may contain itself, even
 * through another assembly: walks down from the components and refuses when it meets
 * `selfId`.
 */
export async function assertComponentsValid(
  db: Db,
  companyId: number,
  selfId: number | undefined,
  assembly: AssemblyInput,
) {
  const ids = assembly.components.map((c) => c.product_id);
  const found = await db
    .selectFrom('products')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', 'in', ids)
    .execute();
  const errors = new FieldErrors();
  const key = (index: number) => `assembly.components.${index}.product_id`;
  errors.unknownIds(ids, new Set(found.map((row) => row.id)), key);
  errors.throwIfAny();
  if (selfId === undefined) return; // a new product is nobody's component yet
  const loop = 'A product cannot contain itself, even through another assembly.';
  for (const [index, id] of ids.entries()) {
    if (id === selfId || (await contains(db, id, selfId))) errors.add(key(index), loop);
  }
  errors.throwIfAny();
}

/** Whether `assemblyId` holds `productId` at any depth. */
async function contains(db: Db, assemblyId: number, productId: number): Promise<boolean> {
  const seen = new Set<number>([assemblyId]);
  let frontier = [assemblyId];
  while (frontier.length > 0) {
    const rows = await db
      .selectFrom('product_components')
      .select('component_id')
      .where('assembly_id', 'in', frontier)
      .execute();
    frontier = [];
    for (const { component_id } of rows) {
      if (component_id === productId) return true;
      if (!seen.has(component_id)) {
        seen.add(component_id);
        frontier.push(component_id);
      }
    }
  }
  return false;
}

const assemblyRequired = 'The assembly field is required when type is ASSEMBLY.';

/**
 * PATCH checks the assembly rule on the result: a product that is (or becomes) an ASSEMBLY
 * keeps or is sent its components, never null; one of another type must not send any, and
 * loses those it had (null).
 */
export function patchedAssembly(
  type: ProductType,
  typeBefore: ProductType,
  assembly: AssemblyInput | null | undefined,
): AssemblyInput | null | undefined {
  if (type === 'ASSEMBLY') {
    if (assembly === undefined && typeBefore !== 'ASSEMBLY') {
      throw invalidField('assembly', assemblyRequired);
    }
    if (assembly === null) throw invalidField('assembly', assemblyRequired);
    return assembly;
  }
  if (assembly) {
    throw invalidField('assembly', 'The assembly field is prohibited unless type is ASSEMBLY.');
  }
  return null;
}
