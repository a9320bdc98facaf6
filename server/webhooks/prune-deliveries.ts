import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

/** Delivered and failed deliveries are kept this long, then deleted. */
export const retentionMs = 30 * 24 * 3_600_000;

/**
 * Deletes finished deliveries created before the retention period, a thousand at a time
 * (short transactions: the print queue shares the database). Pending ones stay, whatever
 * their age. Answers how many went.
 */
export async function pruneDeliveries(storage: Storage, now: Date): Promise<number> {
  const cutoff = isoNow(new Date(now.getTime() - retentionMs));
  let total = 0;
  for (;;) {
    const old = storage.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('created_at', '<', cutoff)
      .where('status', '!=', sql.lit('pending'))
      .limit(1000);
    const result = await storage.db
      .deleteFrom('webhook_deliveries')
      .where('id', 'in', old)
      .executeTakeFirst();
    const deleted = Number(result.numDeletedRows);
    total += deleted;
    if (deleted < 1000) return total;
  }
}
