import type { ClaimedJob } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import type { PrintQueue } from './print-queue.ts';
import { toClaimedJob } from './records.ts';

export interface Claim {
  job: ClaimedJob;
  /** Id of the claim's event, so that a claim given back leaves no trace. */
  eventId: number;
}

/**
 * Claims for the agent the oldest job of the highest priority queued on one of its enabled
 * routes (status, holder, claim time, lease, attempts + 1), with its event and document,
 * in one commit; `undefined` when none is queued.
 */
export async function claimJob(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  now: Date,
  leaseSeconds: number,
): Promise<Claim | undefined> {
  const claim = await store.claim(db, {
    companyId: agent.companyId,
    agentRowId: agent.rowId,
    agentUuid: agent.uuid,
    now: isoNow(now),
    lease: isoNow(new Date(now.getTime() + leaseSeconds * 1000)),
  });
  if (!claim) return undefined;
  return { job: toClaimedJob(claim.row, claim.content), eventId: claim.eventId };
}

/**
 * Gives back a claim whose answer could not be delivered (the client went away while it
 * was being made): the job is queued again as if never claimed, and the agents waiting on
 * its route are woken. Only a claim still held by that agent is given back.
 */
export function giveBackClaim(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  claim: Claim,
): Promise<boolean> {
  return store.giveBack(db, {
    companyId: agent.companyId,
    agentUuid: agent.uuid,
    jobId: claim.job.id,
    eventId: claim.eventId,
  });
}
