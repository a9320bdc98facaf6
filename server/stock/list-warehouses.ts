import type { Db } from '../storage/db.ts';

/** The company's warehouses among those named by id or by code (one query). */
export async function listWarehouses(
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
