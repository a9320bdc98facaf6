import type { Db } from '../storage/db.ts';

/** Sign-out: the session ends for every instance at once. */
export async function deleteSession(db: Db, sessionId: number): Promise<void> {
  await db.deleteFrom('console_sessions').where('id', '=', sessionId).execute();
}
