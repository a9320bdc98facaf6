import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import { recordJobEvent } from './job-events.ts';
import { recordTransitions } from './jobs.ts';

export interface SweepResult {
  /** Claimed jobs whose lease ran out: now `failed` with code `lease_expired`. */
  leaseExpired: number[];
  /** Queued jobs past their `expires_at`: now `expired`. */
  expired: number[];
}

export const leaseExpiredMessage =
  'The lease ran out before the agent confirmed the job or reported an error; it was not re-queued, to avoid printing it twice.';

/**
 * Fails claims whose lease ran out (never re-queued: the agent may have printed it) and
 * expires queued jobs past their time, each as one UPDATE ... RETURNING with its events
 * (the trail's and the webhooks').
 */
export async function sweepJobs(storage: Storage, now: Date): Promise<SweepResult> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const lost = await trx
      .updateTable('print_jobs')
      .set({
        status: 'failed',
        error_message: leaseExpiredMessage,
        error_code: 'lease_expired',
        updated_at: stamp,
      })
      // Literal statuses: the partial indexes apply only to queries that name them so.
      .where('status', '=', sql.lit('claimed'))
      .where('lease_expires_at', '<=', stamp)
      .returningAll()
      .execute();
    const stale = await trx
      .updateTable('print_jobs')
      .set({ status: 'expired', updated_at: stamp })
      .where('status', '=', sql.lit('queued'))
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', stamp)
      .returningAll()
      .execute();
    await recordTransitions(trx, [
      ...lost.map((row) => ({
        companyId: row.company_id,
        jobId: row.id,
        from: 'claimed' as const,
        to: 'failed' as const,
        agentId: row.agent_id,
        message: 'lease_expired',
        at: stamp,
      })),
      ...stale.map((row) => ({
        companyId: row.company_id,
        jobId: row.id,
        from: 'queued' as const,
        to: 'expired' as const,
        agentId: null,
        message: 'expires_at passed before any agent claimed it',
        at: stamp,
      })),
    ]);
    for (const row of lost) await recordJobEvent(storage, trx, 'print_job.failed', row);
    for (const row of stale) await recordJobEvent(storage, trx, 'print_job.expired', row);
    return {
      leaseExpired: lost.map((row) => row.id).sort((a, b) => a - b),
      expired: stale.map((row) => row.id).sort((a, b) => a - b),
    };
  });
}
