import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import { isDomainError } from '../domain-errors.ts';
import type { AgentRef } from '../printing/agents/agent-identities.ts';
import type { PrintQueue } from '../printing/jobs/print-queue.ts';
import type { JobRow, StoredClaim } from '../printing/store/queue-store.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { sourceOf } from './records.ts';
import { printerContentType } from './render/rendering.ts';
import { defaultProfile } from './render-document.ts';
import { markRendered, readRouteProfile, readTemplateJob } from './template-jobs.ts';

/** The code of a template job that could not be rendered for its printer. */
export const renderFailedCode = 'template_render_failed';

export type RenderedClaim =
  | { rendered: true; row: JobRow; content: Buffer }
  | { rendered: false; message: string };

/**
 * A template job just claimed, rendered for the profile of the claiming agent's route (an
 * 80 mm ESC/POS printer when the route has none): its bytes become the job's document, in
 * one commit with the profile they were made for, and are what the agent gets. A job that
 * cannot be rendered for that printer (a label on a receipt printer, a template past its
 * limits) is failed with `template_render_failed` and its reason, and the agent claims on.
 */
export async function renderClaimedJob(
  { storage, store, renderer }: PrintQueue,
  db: Db,
  agent: AgentRef,
  claim: StoredClaim,
  now: Date,
): Promise<RenderedClaim> {
  const { row } = claim;
  const templateJob = await readTemplateJob(db, row.company_id, row.id);
  if (!templateJob) return { rendered: false, message: 'The job has no template.' };
  const profile: PrinterProfile =
    (await readRouteProfile(db, agent.rowId, row.route)) ?? defaultProfile;
  let bytes: Buffer;
  try {
    ({ bytes } = await renderer.render({
      companyId: row.company_id,
      template: sourceOf(templateJob.version),
      data: claim.content,
      profile,
      format: 'raw',
      claim: true,
    }));
  } catch (error) {
    if (!isDomainError(error)) throw error;
    return {
      rendered: false,
      message: `The template could not be rendered for this printer: ${error.message}`,
    };
  }
  const recorded = await storage.transaction(db, async (trx) => {
    const updated = await store.recordRendering(trx, {
      companyId: row.company_id,
      jobId: row.id,
      agentUuid: agent.uuid,
      content: bytes,
      contentType: printerContentType[profile.language],
      now: isoNow(now),
    });
    if (updated) await markRendered(trx, row.id, profile);
    return updated;
  });
  if (!recorded) return { rendered: false, message: 'The job was no longer claimed.' };
  return { rendered: true, row: recorded, content: bytes };
}
