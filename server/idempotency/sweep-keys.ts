import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

/** Rows the sweep reads, and at most deletes, per statement. */
const batch = 1000;

/**
 * Deletes the keys whose time is up; returns how many. Keys expire in the order they were
 * stored (one TTL for all), so the sweep walks the table from its oldest id and stops at
 * the first key still alive: no index on the expiry needed, and each statement touches at
 * most `batch` rows. A key stored out of that order (the TTL was shortened, or PostgreSQL
 * handed out ids in another order than commits) waits for the keys before it; it is dead
 * meanwhile all the same, since a lookup ignores an expired key. Harmless when two
 * instances run it at once.
 */
export async function sweepKeys(storage: Storage, now: Date): Promise<number> {
  const stamp = isoNow(now);
  let deleted = 0;
  for (;;) {
    const oldest = await storage.db
      .selectFrom('idempotency_keys')
      .select(['id', 'expires_at'])
      .orderBy('id')
      .limit(batch)
      .execute();
    const alive = oldest.findIndex((row) => row.expires_at > stamp);
    const dead = alive === -1 ? oldest : oldest.slice(0, alive);
    if (dead.length === 0) return deleted;
    const result = await storage.db
      .deleteFrom('idempotency_keys')
      .where('id', '<=', dead.at(-1)!.id)
      .where('expires_at', '<=', stamp)
      .executeTakeFirst();
    deleted += Number(result.numDeletedRows);
    if (alive !== -1 || oldest.length < batch) return deleted;
  }
}
