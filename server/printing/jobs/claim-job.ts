import { type ClaimedJob, templateDataType } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import type { JobRow, StoredClaim } from '../store/queue-store.ts';
import { renderFailedCode } from './job-renderer.ts';
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
 * routes (only `onRoutes` of them, when the agent names those it can print on now) (status,
 * holder, claim time, lease, attempts + 1), with its event and document, in one commit;
 * `undefined` when none is queued. A template job is rendered once its claim has committed,
 * for the printer of the claiming agent's route (the queue's `JobRenderer`), and its bytes
 * recorded (docs/templates.md); one that cannot be rendered for that printer is failed, and
 * the next job claimed.
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
    const rendered = await renderClaimed(queue, db, agent, claim, now);
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

type RenderedClaim =
  | { rendered: true; row: JobRow; content: Buffer }
  | { rendered: false; message: string };

/**
 * A claimed template job rendered (`JobRenderer`), then its bytes recorded as its document,
 * with what the renderer keeps of the rendering, in one commit; only while the agent still
 * holds the job claimed.
 */
async function renderClaimed(
  { storage, store, renderer }: PrintQueue,
  db: Db,
  agent: AgentRef,
  { row, content: data }: StoredClaim,
  now: Date,
): Promise<RenderedClaim> {
  const rendering = await renderer.renderClaimed(db, {
    companyId: row.company_id,
    jobId: row.id,
    route: row.route,
    agentRowId: agent.rowId,
    data,
  });
  if (!rendering.rendered) return rendering;
  const recorded = await storage.transaction(db, async (trx) => {
    const updated = await store.recordRendering(trx, {
      companyId: row.company_id,
      jobId: row.id,
      agentUuid: agent.uuid,
      content: rendering.content,
      contentType: rendering.contentType,
      now: isoNow(now),
    });
    if (updated) await rendering.record(trx);
    return updated;
  });
  if (!recorded) return { rendered: false, message: 'The job was no longer claimed.' };
  return { rendered: true, row: recorded, content: rendering.content };
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
