import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** A new warehouse of the company (its code must be free); its id. */
export async function createWarehouse(
  db: Db,
  input: { companyId: number; code: string; name: string },
  now = new Date(),
): Promise<number> {
  const taken = await db
    .selectFrom('warehouses')
    .select('id')
    .where('company_id', '=', input.companyId)
    .where('code', '=', input.code)
    .executeTakeFirst();
  if (taken) throw new Error(`warehouse code ${input.code} is already taken in this company`);
  const row = await db
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
