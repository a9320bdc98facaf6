import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** Revokes at once: the server's token cache notices the write (see authenticate.ts). */
export async function revokeToken(db: Db, id: number, now = new Date()): Promise<boolean> {
  const result = await db
    .updateTable('tokens')
    .set({ revoked_at: isoNow(now) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
