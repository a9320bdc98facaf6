import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

/** Deletes the keys whose time is up; returns how many. Harmless when two instances run it. */
export async function sweepKeys(storage: Storage, now: Date): Promise<number> {
  const result = await storage.db
    .deleteFrom('idempotency_keys')
    .where('expires_at', '<=', isoNow(now))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
