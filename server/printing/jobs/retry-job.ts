import type { JobRecord, JobStatus } from '../../../shared/printing.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { JobRow } from '../store/queue-store.ts';
import type { PrintQueue } from './print-queue.ts';
import { type JobGuard, readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';

const retryable: readonly JobStatus[] = ['failed', 'expired', 'cancelled'];

/** The job's own time to live, counted again from `now` (null when it had none). */
export function renewedExpiry(row: JobRow, now: Date): string | null {
  if (row.expires_at === null) return null;
  const ttl = Date.parse(row.expires_at) - Date.parse(row.created_at);
  return isoNow(new Date(now.getTime() + Math.max(ttl, 1000)));
}

/**
 * `failed | expired | cancelled → queued`, same id: agent, printer, error and claim are
 * cleared; an expiry, if the job had one, starts again from now. Attempts keep counting.
 * The agents waiting on its route are woken once it has committed.
 */
export async function retryJob(
  { storage, store }: PrintQueue,
  db: Db,
  companyId: number,
  jobId: number,
  agentId: string | null,
  now: Date,
  guard?: JobGuard,
): Promise<JobRecord> {
  const row = await storage.transaction(db, async (trx) => {
    const current = await readJobRow(store, trx, companyId, jobId);
    guard?.(current);
    if (!retryable.includes(current.status)) {
      throw new Conflict(
        `Job ${jobId} is ${current.status}; only a failed, expired or cancelled job can be retried.`,
      );
    }
    const row = await store.requeue(trx, {
      companyId,
      jobId,
      from: current.status,
      agentId,
      expiresAt: renewedExpiry(current, now),
      now: isoNow(now),
    });
    if (!row) throw new Conflict(`Job ${jobId} changed while it was being retried; try again.`);
    return row;
  });
  return toJobRecord(row);
}
