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
