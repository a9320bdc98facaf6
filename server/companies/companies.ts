import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

export async function createCompany(storage: Storage, name: string, now = new Date()) {
  const row = await storage.db
    .insertInto('companies')
    .values({ name, created_at: isoNow(now) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function companyExists(storage: Storage, id: number): Promise<boolean> {
  const row = await storage.db
    .selectFrom('companies')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export async function countCompanies(storage: Storage): Promise<number> {
  const row = await storage.db
    .selectFrom('companies')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
