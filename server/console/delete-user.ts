import { Conflict, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';

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
    const user = await trx
      .selectFrom('console_users')
      .select(['id', 'role'])
      .where('company_id', '=', companyId)
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!user) throw new NotFound('User');
    if (user.role === 'owner') {
      const owners = await trx
        .selectFrom('console_users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('company_id', '=', companyId)
        .where('role', '=', 'owner')
        .executeTakeFirstOrThrow();
      if (Number(owners.count) <= 1) throw new Conflict('The last owner cannot be removed.');
    }
    await trx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
    await trx.deleteFrom('console_users').where('id', '=', userId).execute();
  });
}
