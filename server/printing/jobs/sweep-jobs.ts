import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from './print-queue.ts';

export interface SweepResult {
  /** Claimed jobs whose lease ran out: now `failed` with code `lease_expired`. */
  leaseExpired: number[];
  /** Queued jobs past their `expires_at`: now `expired`. */
  expired: number[];
  /** Queued jobs announced as waiting past the notice threshold (`print_job.held`). */
  held: number[];
}

/**
 * Fails claims whose lease ran out (never re-queued: the agent may have printed it),
 * expires queued jobs past their time, and announces the jobs waiting longer than
 * `heldNoticeSeconds` (0: never), as of `now`; the ids of each, in order.
 */
export async function sweepJobs(
  { store }: PrintQueue,
  db: Db,
  now: Date,
  heldNoticeSeconds = 0,
): Promise<SweepResult> {
  const heldSince =
    heldNoticeSeconds > 0 ? isoNow(new Date(now.getTime() - heldNoticeSeconds * 1000)) : null;
  const { leaseExpired, expired, held } = await store.sweep(db, isoNow(now), heldSince);
  const ids = (rows: { id: number }[]) => rows.map((row) => row.id).sort((a, b) => a - b);
  return { leaseExpired: ids(leaseExpired), expired: ids(expired), held: ids(held) };
}
