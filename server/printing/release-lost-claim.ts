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
 * Puts back in the queue a claim whose outcome is unknown: only the claim made by this very
 * attempt (same agent, same claim time), and only when it did commit; the others are woken
 * by a NOTIFY (PostgreSQL only: a SQLite claim cannot lose its answer).
 */
export async function releaseLostClaim(
  storage: Storage,
  claim: { companyId: number; agentUuid: string; claimedAt: string },
): Promise<void> {
  await storage.transaction(async (trx) => {
    const released = await trx
      .updateTable('print_jobs')
      .set(unclaimed)
      .where('agent_id', '=', claim.agentUuid)
      .where('claimed_at', '=', claim.claimedAt)
      .where('status', '=', 'claimed')
      .returning(['id', 'route'])
      .executeTakeFirst();
    if (!released) return;
    await trx
      .deleteFrom('print_job_events')
      .where('job_id', '=', released.id)
      .where('to_status', '=', 'claimed')
      .where('agent_id', '=', claim.agentUuid)
      .where('at', '=', claim.claimedAt)
      .execute();
    const notice = noticeOf(claim.companyId, released.route, released.id);
    await sql`select pg_notify(${jobsChannel}, ${notice})`.execute(trx);
  });
}
