import type { Storage } from '../storage/database.ts';
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
