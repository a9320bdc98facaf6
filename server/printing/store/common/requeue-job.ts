import type { Db } from '../../../storage/db.ts';
import type { JobRow, Requeue } from '../queue-store.ts';
import { finishChange, type StoreContext } from './store-context.ts';
import { writeTrail } from './trail.ts';

/**
 * `from → queued` under the same id (a retry, or a held job given back by its agent, then
 * only while that agent holds it), only while the job is still `from`: agent,
 * printer, error and claim cleared, the expiry given. Announced as queued once committed.
 */
export function requeueJob(
  context: StoreContext,
  db: Db,
  request: Requeue,
): Promise<JobRow | undefined> {
  return context.storage.transaction(db, async (trx) => {
    let update = trx
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
        expires_at: request.expiresAt,
        // A new wait: print_job.held may be sent for it again.
        held_noticed_at: null,
        updated_at: request.now,
      })
      .where('id', '=', request.jobId)
      .where('company_id', '=', request.companyId)
      // The state read before must still hold (PostgreSQL: another instance may act too).
      .where('status', '=', request.from);
    if (request.heldBy !== undefined) update = update.where('agent_id', '=', request.heldBy);
    const row = await update.returningAll().executeTakeFirst();
    if (!row) return undefined;
    await writeTrail(trx, [
      {
        companyId: request.companyId,
        jobId: request.jobId,
        from: request.from,
        to: 'queued',
        agentId: request.agentId,
        message: request.message ?? 'retry',
        at: request.now,
      },
    ]);
    await finishChange(context, trx, { kind: 'requeued', row });
    return row;
  });
}
