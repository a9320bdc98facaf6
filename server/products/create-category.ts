import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** A new category of the company; its id. */
export async function createCategory(
  db: Db,
  input: { companyId: number; name: string },
  now = new Date(),
): Promise<number> {
  const row = await db
    .insertInto('categories')
    .values({ company_id: input.companyId, name: input.name, created_at: isoNow(now) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
