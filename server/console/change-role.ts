import type { ConsoleRole, ConsoleUserRecord } from '../../shared/console.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { keepLastOwner, readUserRole } from './last-owner.ts';
import { toUserRecord } from './records.ts';

/**
 * An owner changes a user's role. A session reads its role at every request
 * (read-session.ts), so the change counts from the person's next request, on every instance;
 * the last owner keeps the role (a company without an owner could not manage its users).
 */
export async function changeRole(
  storage: Storage,
  db: Db,
  companyId: number,
  userId: number,
  role: ConsoleRole,
): Promise<ConsoleUserRecord> {
  return storage.transaction(db, async (trx) => {
    const current = await readUserRole(trx, companyId, userId);
    if (current === 'owner' && role !== 'owner') {
      await keepLastOwner(
        trx,
        companyId,
        'The last owner keeps the role: make someone else owner first.',
      );
    }
    const row = await trx
      .updateTable('console_users')
      .set({ role })
      .where('id', '=', userId)
      .returning(['id', 'email', 'role', 'password_hash', 'created_at'])
      .executeTakeFirstOrThrow();
    return toUserRecord(row);
  });
}
