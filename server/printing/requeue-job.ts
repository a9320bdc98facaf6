import type { JobRecord, JobStatus } from '../../shared/printing.ts';
import { Conflict } from '../domain-errors.ts';
import { isoNow } from '../time.ts';
import { insertJob } from './create-job.ts';
import { recordJobEvent } from './job-events.ts';
import { getJobRow, type JobRow, recordTransitions, toJobRecord } from './jobs.ts';
import { type PrintQueue, queueInTransaction } from './print-queue.ts';

const retryable: readonly JobStatus[] = ['failed', 'expired', 'cancelled'];
const reprintable: readonly JobStatus[] = ['printed', 'failed'];

/** The job's own time to live, counted again from `now` (null when it had none). */
function renewedExpiry(row: JobRow, now: Date): string | null {
  if (row.expires_at === null) return null;
  const ttl = Date.parse(row.expires_at) - Date.parse(row.created_at);
  return isoNow(new Date(now.getTime() + Math.max(ttl, 1000)));
}

/**
 * `failed | expired | cancelled → queued`, same id: agent, printer, error and claim are cleared; an
 * expiry, if the job had one, starts again from now. Attempts keep counting. The agents
 * waiting on its route are woken once it has committed.
 */
export async function retryJob(
  queue: PrintQueue,
  companyId: number,
  jobId: number,
  agentId: string | null,
  now: Date,
): Promise<JobRecord> {
  const stamp = isoNow(now);
  const row = await queueInTransaction(queue, companyId, async (trx) => {
    const current = await getJobRow(trx, companyId, jobId);
    if (!retryable.includes(current.status)) {
      throw new Conflict(
        `Job ${jobId} is ${current.status}; only a failed, expired or cancelled job can be retried.`,
      );
    }
    const row = await trx
      .updateTable('print_jobs')
      .set({
        status: 'queued',
        agent_id: null,
        printer: null,
        error_message: null,
        error_code: null,
        claimed_at: null,
        printed_at: null,
        lease_expires_at: null,
        expires_at: renewedExpiry(current, now),
        updated_at: stamp,
      })
      .where('id', '=', jobId)
      .where('company_id', '=', companyId)
      // The state read above must still hold (PostgreSQL: another instance may act too).
      .where('status', '=', current.status)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new Conflict(`Job ${jobId} changed while it was being retried; try again.`);
    await recordTransitions(trx, [
      {
        companyId,
        jobId,
        from: current.status,
        to: 'queued',
        agentId,
        message: 'retry',
        at: stamp,
      },
    ]);
    return row;
  });
  return toJobRecord(row);
}

/**
 * `printed | failed →` a new queued job with the same document and `reprint_of` set; the
 * agents waiting on its route are woken once it has committed.
 */
export async function reprintJob(
  queue: PrintQueue,
  companyId: number,
  jobId: number,
  now: Date,
): Promise<JobRecord> {
  const row = await queueInTransaction(queue, companyId, async (trx) => {
    const original = await getJobRow(trx, companyId, jobId);
    if (!reprintable.includes(original.status)) {
      throw new Conflict(
        `Job ${jobId} is ${original.status}; only a printed or failed job can be reprinted.`,
      );
    }
    const reprint = await insertJob(
      trx,
      companyId,
      {
        route: original.route,
        title: original.title ?? undefined,
        content_type: original.content_type,
        copies: original.copies,
        priority: original.priority,
        options: JSON.parse(original.options),
        document: {
          documentId: original.document_id,
          sha256: original.sha256,
          size: Number(original.size),
        },
        reprintOf: original.id,
        expiresAt: renewedExpiry(original, now),
      },
      now,
      `reprint of job ${original.id}`,
    );
    await recordJobEvent(queue.storage, trx, 'print_job.created', reprint);
    return reprint;
  });
  return toJobRecord(row);
}
