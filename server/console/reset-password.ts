import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { setupHours } from './create-user.ts';
import { hashSecret, newSecret } from './secrets.ts';

/**
 * An owner resets someone's password: the old one stops working and their sessions end at
 * once (whoever knew it is out), and a one-time link, like an invitation's, sets a new one
 * within `setupHours`. Only the link's hash is kept.
 */
export async function resetPassword(
  storage: Storage,
  db: Db,
  companyId: number,
  userId: number,
  now: Date,
): Promise<{ setupCode: string; expiresAt: string }> {
  const setupCode = newSecret();
  const expiresAt = isoNow(new Date(now.getTime() + setupHours * 3_600_000));
  await storage.transaction(db, async (trx) => {
    const reset = await trx
      .updateTable('console_users')
      .set({ password_hash: null, setup_hash: hashSecret(setupCode), setup_expires_at: expiresAt })
      .where('id', '=', userId)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    if (Number(reset.numUpdatedRows) === 0) throw new NotFound('User');
    await trx.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
  });
  return { setupCode, expiresAt };
}
