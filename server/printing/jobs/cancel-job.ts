import type { JobRecord } from '../../../shared/printing.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { PrintQueue } from './print-queue.ts';
import { readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';

const onlyQueued = (jobId: number, status: string) =>
  new Conflict(`Job ${jobId} is ${status}; only a queued job can be cancelled.`);

/**
 * `queued → cancelled`, a final state: no agent will claim the job (a claim takes only
 * queued jobs), and a retry queues it again under the same id. A job in any other state
 * is refused with its state: once claimed, an agent may already be printing it.
 */
export async function cancelJob(
  { storage, store }: PrintQueue,
  db: Db,
  companyId: number,
  jobId: number,
  now: Date,
): Promise<JobRecord> {
  const row = await storage.transaction(db, async (trx) => {
    const current = await readJobRow(store, trx, companyId, jobId);
    if (current.status !== 'queued') throw onlyQueued(jobId, current.status);
    const row = await store.cancel(trx, { companyId, jobId, now: isoNow(now) });
    // An agent may have claimed it meanwhile (another instance): then it is no longer queued.
    if (!row) throw onlyQueued(jobId, (await readJobRow(store, trx, companyId, jobId)).status);
    return row;
  });
  return toJobRecord(row);
}
