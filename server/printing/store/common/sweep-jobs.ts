import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import type { SweptJobs } from '../queue-store.ts';
import { inTransactionUnit } from './change-unit.ts';
import type { StoreContext } from './store-context.ts';
import { writeTrail } from './trail.ts';

export const leaseExpiredMessage =
  'The lease ran out before the agent confirmed the job or reported an error; it was not re-queued, to avoid printing it twice.';

/**
 * Queued jobs past their `expires_at`, expired. Found through the queue's partial index
 * (every queued job; its status named as a literal, so that the index applies): an index of
 * their own cost every create and claim an entry (migration 041).
 */
export const expiringJobs = (db: Db, stamp: string) =>
  db
    .updateTable('print_jobs')
    .set({ status: 'expired', updated_at: stamp })
    .where('status', '=', sql.lit('queued'))
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', stamp);

/**
 * Queued since before `heldSince` and not yet announced (print_job.held, once a wait),
 * marked: through the queue's partial index too (migration 039).
 */
export const heldJobs = (db: Db, stamp: string, heldSince: string) =>
  db
    .updateTable('print_jobs')
    .set({ held_noticed_at: stamp })
    .where('status', '=', sql.lit('queued'))
    .where('held_noticed_at', 'is', sql.lit(null))
    .where('updated_at', '<=', heldSince);

/**
 * Fails claims whose lease ran out (never re-queued: the agent may have printed it),
 * expires queued jobs past their time, and marks the jobs queued since before `heldSince`
 * (null: none) as announced held, each as one UPDATE ... RETURNING over a partial index, with
 * their events, in one transaction.
 */
export function sweepJobs(
  context: StoreContext,
  db: Db,
  stamp: string,
  heldSince: string | null,
): Promise<SweptJobs> {
  return inTransactionUnit(context, db, async (trx) => {
    const leaseExpired = await trx
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
    const expired = await expiringJobs(trx, stamp).returningAll().execute();
    const held =
      heldSince === null ? [] : await heldJobs(trx, stamp, heldSince).returningAll().execute();
    await writeTrail(trx, [
      ...leaseExpired.map((row) => ({
        companyId: row.company_id,
        jobId: row.id,
        from: 'claimed' as const,
        to: 'failed' as const,
        agentId: row.agent_id,
        message: 'lease_expired',
        at: stamp,
      })),
      ...expired.map((row) => ({
        companyId: row.company_id,
        jobId: row.id,
        from: 'queued' as const,
        to: 'expired' as const,
        agentId: null,
        message: 'expires_at passed before any agent claimed it',
        at: stamp,
      })),
    ]);
    const changes = [
      ...leaseExpired.map((row) => ({ kind: 'failed' as const, row })),
      ...expired.map((row) => ({ kind: 'expired' as const, row })),
      ...held.map((row) => ({ kind: 'held' as const, row })),
    ];
    return { result: { leaseExpired, expired, held }, changes };
  });
}
