import type { Db } from '../../../storage/db.ts';
import type { Cancel, JobRow } from '../queue-store.ts';
import { finishChange, type StoreContext } from './store-context.ts';
import { writeTrail } from './trail.ts';

/** `queued → cancelled`, only while the job is still queued (an agent may claim it meanwhile). */
export function cancelJob(
  context: StoreContext,
  db: Db,
  request: Cancel,
): Promise<JobRow | undefined> {
  return context.storage.transaction(db, async (trx) => {
    const row = await trx
      .updateTable('print_jobs')
      .set({ status: 'cancelled', updated_at: request.now })
      .where('id', '=', request.jobId)
      .where('company_id', '=', request.companyId)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await writeTrail(trx, [
      {
        companyId: request.companyId,
        jobId: request.jobId,
        from: 'queued',
        to: 'cancelled',
        agentId: null,
        message: 'cancel',
        at: request.now,
      },
    ]);
    await finishChange(context, trx, { kind: 'cancelled', row });
    return row;
  });
}
