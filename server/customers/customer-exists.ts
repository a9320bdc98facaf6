import type { Db } from '../storage/db.ts';

/** Whether the company has a customer of this id (an offer names one). */
export async function customerExists(db: Db, companyId: number, id: number): Promise<boolean> {
  const found = await db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  return found !== undefined;
}
