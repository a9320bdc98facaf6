import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from './print-queue.ts';

export interface SweepResult {
  /** Claimed jobs whose lease ran out: now `failed` with code `lease_expired`. */
  leaseExpired: number[];
  /** Queued jobs past their `expires_at`: now `expired`. */
  expired: number[];
}

/**
 * Fails claims whose lease ran out (never re-queued: the agent may have printed it) and
 * expires queued jobs past their time, as of `now`; the ids of each, in order.
 */
export async function sweepJobs({ store }: PrintQueue, db: Db, now: Date): Promise<SweepResult> {
  const { leaseExpired, expired } = await store.sweep(db, isoNow(now));
  return {
    leaseExpired: leaseExpired.map((row) => row.id).sort((a, b) => a - b),
    expired: expired.map((row) => row.id).sort((a, b) => a - b),
  };
}
