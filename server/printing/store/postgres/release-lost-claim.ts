import { setTimeout as sleep } from 'node:timers/promises';
import { inTransactionUnit } from '../common/change-unit.ts';
import { unclaimed } from '../common/give-back-claim.ts';
import type { StoreContext } from '../common/store-context.ts';

/**
 * The pauses before each new look for a lost claim, in ms (the looks come 50 ms, 250 ms
 * and 1 s after the first). A connection seen lost may be that of a statement PostgreSQL
 * has not run yet (it was sent just before the cut, and the backend is slow): it then
 * commits after the first look, which found nothing to give back. Looking again for a
 * second covers that; past it, the lease does.
 */
export const lostClaimPauses = [50, 200, 750];

/**
 * Puts back in the queue a claim whose outcome is unknown: only the claim made by this very
 * attempt (same agent, same claim time), and only when it did commit; the others are woken
 * by its announcement (PostgreSQL only: a SQLite claim cannot lose its answer). Found nothing, it
 * looks again (`lostClaimPauses`) before it gives up.
 */
export async function releaseLostClaim(context: StoreContext, claim: LostClaim): Promise<void> {
  if (await releaseOnce(context, claim)) return;
  for (const pause of lostClaimPauses) {
    await sleep(pause);
    if (await releaseOnce(context, claim)) return;
  }
}

/** The claim whose outcome is unknown: its agent and claim time. */
export interface LostClaim {
  companyId: number;
  agentUuid: string;
  claimedAt: string;
}

async function releaseOnce(context: StoreContext, claim: LostClaim): Promise<boolean> {
  return inTransactionUnit(context, context.storage.db, async (trx) => {
    const released = await trx
      .updateTable('print_jobs')
      .set(unclaimed)
      .where('agent_id', '=', claim.agentUuid)
      .where('claimed_at', '=', claim.claimedAt)
      .where('status', '=', 'claimed')
      .returningAll()
      .executeTakeFirst();
    if (!released) return { result: false, changes: [] };
    await trx
      .deleteFrom('print_job_events')
      .where('job_id', '=', released.id)
      .where('to_status', '=', 'claimed')
      .where('agent_id', '=', claim.agentUuid)
      .where('at', '=', claim.claimedAt)
      .execute();
    return { result: true, changes: [{ kind: 'requeued' as const, row: released }] };
  });
}
