import { type ClaimedJob, templateDataType } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { renderClaimedJob, renderFailedCode } from '../../templates/render-claimed-job.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import type { PrintQueue } from './print-queue.ts';
import { toClaimedJob } from './records.ts';

export interface Claim {
  job: ClaimedJob;
  /** Id of the claim's event, so that a claim given back leaves no trace. */
  eventId: number;
}

/** Template jobs that fail to render, claimed one after the other, before the claim gives up. */
const maxRenderFailures = 10;

/**
 * Claims for the agent the oldest job of the highest priority queued on one of its enabled
 * routes (only `onRoutes` of them, when the agent names those it can print on now) (status, holder, claim time, lease, attempts + 1), with its event and document,
 * in one commit; `undefined` when none is queued. A template job is rendered now, for the
 * profile of the claiming agent's route, and its bytes recorded (docs/templates.md); one that
 * cannot be rendered for that printer is failed, and the next job claimed.
 */
export async function claimJob(
  queue: PrintQueue,
  db: Db,
  agent: AgentRef,
  now: Date,
  leaseSeconds: number,
  onRoutes?: readonly string[],
): Promise<Claim | undefined> {
  for (let failures = 0; failures < maxRenderFailures; failures++) {
    const claim = await queue.store.claim(db, {
      companyId: agent.companyId,
      agentRowId: agent.rowId,
      agentUuid: agent.uuid,
      now: isoNow(now),
      lease: isoNow(new Date(now.getTime() + leaseSeconds * 1000)),
      ...(onRoutes !== undefined && { routes: onRoutes }),
    });
    if (!claim) return undefined;
    if (claim.row.content_type !== templateDataType) {
      return { job: toClaimedJob(claim.row, claim.content), eventId: claim.eventId };
    }
    const rendered = await renderClaimedJob(queue, db, agent, claim, now);
    if (rendered.rendered) {
      return { job: toClaimedJob(rendered.row, rendered.content), eventId: claim.eventId };
    }
    await queue.store.fail(db, {
      jobId: claim.row.id,
      companyId: agent.companyId,
      agentUuid: agent.uuid,
      message: rendered.message,
      code: renderFailedCode,
      now: isoNow(now),
    });
  }
  return undefined;
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
