import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

export async function createWarehouse(
  storage: Storage,
  input: { companyId: number; code: string; name: string },
  now = new Date(),
): Promise<number> {
  const taken = await storage.db
    .selectFrom('warehouses')
    .select('id')
    .where('company_id', '=', input.companyId)
    .where('code', '=', input.code)
    .executeTakeFirst();
  if (taken) throw new Error(`warehouse code ${input.code} is already taken in this company`);
  const row = await storage.db
    .insertInto('warehouses')
    .values({
      company_id: input.companyId,
      code: input.code,
      name: input.name,
      created_at: isoNow(now),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The company's warehouses among those named by id or by code (one query). */
export async function findWarehouses(
  db: Db,
  companyId: number,
  names: { ids: number[]; codes: string[] },
): Promise<{ id: number; code: string }[]> {
  const ids = [...new Set(names.ids)];
  const codes = [...new Set(names.codes)];
  if (ids.length === 0 && codes.length === 0) return [];
  return db
    .selectFrom('warehouses')
    .select(['id', 'code'])
    .where('company_id', '=', companyId)
    .where((eb) => {
      const any = [];
      if (ids.length > 0) any.push(eb('id', 'in', ids));
      if (codes.length > 0) any.push(eb('code', 'in', codes));
      return eb.or(any);
    })
    .execute();
}
