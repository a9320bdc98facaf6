import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** A new company; its id. */
export async function createCompany(db: Db, name: string, now = new Date()) {
  const row = await db
    .insertInto('companies')
    .values({ name, created_at: isoNow(now) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
