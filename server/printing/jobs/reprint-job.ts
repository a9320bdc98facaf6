import type { JobRecord, JobStatus } from '../../../shared/printing.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from './print-queue.ts';
import { type JobGuard, readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';
import { renewedExpiry } from './retry-job.ts';

const reprintable: readonly JobStatus[] = ['printed', 'failed'];

/**
 * `printed | failed →` a new queued job with the same document (a template job's: the bytes it
 * was rendered to) and `reprint_of` set; the
 * agents waiting on its route are woken once it has committed.
 */
export async function reprintJob(
  { storage, store, renderer }: PrintQueue,
  db: Db,
  companyId: number,
  jobId: number,
  now: Date,
  guard?: JobGuard,
): Promise<JobRecord> {
  const row = await storage.transaction(db, async (trx) => {
    const original = await readJobRow(store, trx, companyId, jobId);
    guard?.(original);
    if (!reprintable.includes(original.status)) {
      throw new Conflict(
        `Job ${jobId} is ${original.status}; only a printed or failed job can be reprinted.`,
      );
    }
    const reprint = await store.reprint(trx, {
      original,
      createdAt: isoNow(now),
      expiresAt: renewedExpiry(original, now),
    });
    // A template job's reprint keeps its template and rendering: the same bytes, the same preview.
    await renderer.copyForReprint(trx, original.id, reprint.id);
    return reprint;
  });
  return toJobRecord(row);
}
