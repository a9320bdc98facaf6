import { type ExpressionBuilder, sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { jobsChannel, noticeOf } from './notifier.ts';

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
 * When a lost claim is looked for again, in ms after the first look. A connection seen lost
 * may be that of a statement PostgreSQL has not run yet (it was sent just before the cut,
 * and the backend is slow): it then commits after the first look, which found nothing to
 * give back. Looking again for a second covers that; past it, the lease does.
 */
export const lostClaimLooks = [50, 250, 1000];

/**
 * Puts back in the queue a claim whose outcome is unknown: only the claim made by this very
 * attempt (same agent, same claim time), and only when it did commit; the others are woken
 * by a NOTIFY (PostgreSQL only: a SQLite claim cannot lose its answer). Found nothing, it
 * looks again (`lostClaimLooks`) before it gives up.
 */
export async function releaseLostClaim(
  storage: Storage,
  claim: { companyId: number; agentUuid: string; claimedAt: string },
): Promise<void> {
  if (await releaseOnce(storage, claim)) return;
  let waited = 0;
  for (const at of lostClaimLooks) {
    await new Promise((resolve) => setTimeout(resolve, at - waited));
    waited = at;
    if (await releaseOnce(storage, claim)) return;
  }
}

async function releaseOnce(
  storage: Storage,
  claim: { companyId: number; agentUuid: string; claimedAt: string },
): Promise<boolean> {
  return storage.transaction(async (trx) => {
    const released = await trx
      .updateTable('print_jobs')
      .set(unclaimed)
      .where('agent_id', '=', claim.agentUuid)
      .where('claimed_at', '=', claim.claimedAt)
      .where('status', '=', 'claimed')
      .returning(['id', 'route'])
      .executeTakeFirst();
    if (!released) return false;
    await trx
      .deleteFrom('print_job_events')
      .where('job_id', '=', released.id)
      .where('to_status', '=', 'claimed')
      .where('agent_id', '=', claim.agentUuid)
      .where('at', '=', claim.claimedAt)
      .execute();
    const notice = noticeOf(claim.companyId, released.route, released.id);
    await sql`select pg_notify(${jobsChannel}, ${notice})`.execute(trx);
    return true;
  });
}
