import type { JobRecord } from '../../shared/printing.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import { recordJobEvent } from './job-events.ts';
import { getJobRow, recordTransitions, toJobRecord } from './jobs.ts';

/**
 * `queued → cancelled`, a final state: no agent will claim the job (a claim takes only
 * queued jobs), and a retry queues it again under the same id. A job in any other state
 * is refused with its state: once claimed, an agent may already be printing it.
 */
export async function cancelJob(
  storage: Storage,
  companyId: number,
  jobId: number,
  now: Date,
): Promise<JobRecord> {
  const stamp = isoNow(now);
  const row = await storage.transaction(async (trx) => {
    const current = await getJobRow(trx, companyId, jobId);
    if (current.status !== 'queued') {
      throw new Conflict(`Job ${jobId} is ${current.status}; only a queued job can be cancelled.`);
    }
    const row = await trx
      .updateTable('print_jobs')
      .set({ status: 'cancelled', updated_at: stamp })
      .where('id', '=', jobId)
      .where('company_id', '=', companyId)
      // An agent may claim it meanwhile (another instance): then it is no longer queued.
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      const latest = await getJobRow(trx, companyId, jobId);
      throw new Conflict(`Job ${jobId} is ${latest.status}; only a queued job can be cancelled.`);
    }
    await recordTransitions(trx, [
      {
        companyId,
        jobId,
        from: 'queued',
        to: 'cancelled',
        agentId: null,
        message: 'cancel',
        at: stamp,
      },
    ]);
    await recordJobEvent(storage, trx, 'print_job.cancelled', row);
    return row;
  });
  return toJobRecord(row);
}
