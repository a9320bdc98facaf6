import type { Db } from '../../../storage/db.ts';
import type { FailRequest, JobRow } from '../queue-store.ts';
import { finishChange, type StoreContext } from './store-context.ts';
import { writeTrail } from './trail.ts';

/** The holder's `claimed → failed`, with its message and code, its event and its announcement. */
export function failJob(
  context: StoreContext,
  db: Db,
  request: FailRequest,
): Promise<JobRow | undefined> {
  return context.storage.transaction(db, async (trx) => {
    const row = await trx
      .updateTable('print_jobs')
      .set({
        status: 'failed',
        error_message: request.message,
        error_code: request.code,
        lease_expires_at: null,
        updated_at: request.now,
      })
      .where('id', '=', request.jobId)
      .where('company_id', '=', request.companyId)
      .where('agent_id', '=', request.agentUuid)
      .where('status', '=', 'claimed')
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    await writeTrail(trx, [
      {
        companyId: row.company_id,
        jobId: row.id,
        from: 'claimed',
        to: 'failed',
        agentId: request.agentUuid,
        message: request.message,
        at: row.updated_at,
      },
    ]);
    await finishChange(context, trx, { kind: 'failed', row });
    return row;
  });
}
