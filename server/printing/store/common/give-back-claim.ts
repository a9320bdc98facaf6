import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import type { Database } from '../../../storage/schema.ts';
import type { ClaimGivenBack } from '../queue-store.ts';
import { inTransactionUnit } from './change-unit.ts';
import type { StoreContext } from './store-context.ts';

/** A claimed job's columns as if it had never been claimed (attempts restored). */
export const unclaimed = (eb: ExpressionBuilder<Database, 'print_jobs'>) =>
  ({
    status: 'queued',
    agent_id: null,
    claimed_at: null,
    lease_expires_at: null,
    attempts: eb('attempts', '-', 1),
  }) as const;

/**
 * Gives back a claim whose answer could not be delivered (the client went away while it was
 * being made): the job is queued again as if never claimed — attempts restored, the claim's
 * event removed — and announced. Only a claim the agent still holds is given back.
 */
export function giveBackClaim(
  context: StoreContext,
  db: Db,
  claim: ClaimGivenBack,
): Promise<boolean> {
  return inTransactionUnit(context, db, async (trx) => {
    const row = await trx
      .updateTable('print_jobs')
      .set(unclaimed)
      .where('id', '=', claim.jobId)
      .where('company_id', '=', claim.companyId)
      .where('agent_id', '=', claim.agentUuid)
      .where('status', '=', 'claimed')
      .returningAll()
      .executeTakeFirst();
    if (!row) return { result: false, changes: [] };
    await trx.deleteFrom('print_job_events').where('id', '=', claim.eventId).execute();
    return { result: true, changes: [{ kind: 'requeued', row }] };
  });
}
