import { setTimeout as sleep } from 'node:timers/promises';
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
 * by a NOTIFY (PostgreSQL only: a SQLite claim cannot lose its answer). Found nothing, it
 * looks again (`lostClaimPauses`) before it gives up.
 */
export async function releaseLostClaim(
  storage: Storage,
  claim: { companyId: number; agentUuid: string; claimedAt: string },
): Promise<void> {
  if (await releaseOnce(storage, claim)) return;
  for (const pause of lostClaimPauses) {
    await sleep(pause);
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
