import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { keepLastOwner, readUserRole } from './last-owner.ts';

/**
 * Removes a console user of the company; their sessions go with them, so a browser still
 * signed in is refused on its next request, on every instance. The last owner stays: a
 * company without one could not manage its users any more.
 */
export async function deleteUser(
  storage: Storage,
  db: Db,
  companyId: number,
  userId: number,
): Promise<void> {
  await storage.transaction(db, async (trx) => {
    const role = await readUserRole(trx, companyId, userId);
    if (role === 'owner') await keepLastOwner(trx, companyId, 'The last owner cannot be removed.');
    await trx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
    await trx.deleteFrom('console_users').where('id', '=', userId).execute();
  });
}
