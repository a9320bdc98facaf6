import type { ConsoleUserRecord } from '../../shared/console.ts';
import type { Db } from '../storage/db.ts';
import { toUserRecord } from './records.ts';

/** The company's console users, by address. */
export async function listUsers(db: Db, companyId: number): Promise<ConsoleUserRecord[]> {
  const rows = await db
    .selectFrom('console_users')
    .select(['id', 'email', 'role', 'password_hash', 'created_at'])
    .where('company_id', '=', companyId)
    .orderBy('email')
    .execute();
  return rows.map(toUserRecord);
}
