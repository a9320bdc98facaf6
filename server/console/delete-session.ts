import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** Sign-out: the session ends for every instance at once. */
export async function deleteSession(db: Db, sessionId: number): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', sessionId).execute();
}

/** Sessions past their end, swept now and then so the table does not grow. */
export async function sweepSessions(db: Db, now = new Date()): Promise<void> {
  await db.deleteFrom('console_sessions').where('expires_at', '<=', isoNow(now)).execute();
}
