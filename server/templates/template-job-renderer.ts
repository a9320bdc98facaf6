import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { JobRecord } from '../../shared/printing.ts';
import { isDomainError } from '../domain-errors.ts';
import {
  type ClaimedTemplateJob,
  type JobRenderer,
  type JobRendering,
  type QueueWrites,
  readRouteProfile,
  type TemplateJobToCreate,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { refuseTemplateTheRouteCannotPrint } from './check-template-route.ts';
import { createTemplateJob } from './create-template-job.ts';
import { sourceOf } from './records.ts';
import { printerContentType } from './render/rendering.ts';
import { defaultProfile } from './render-document.ts';
import type { DocumentRenderer } from './render-pool.ts';
import { resolveTemplate } from './resolve-template.ts';
import { copyTemplateJob, markRendered, readTemplateJob } from './template-jobs.ts';

/**
 * The print queue's template jobs (its `JobRenderer` port), rendered on the render pool. A
 * job is made from a template's latest version (`createTemplateJob`). A job just claimed is rendered for the profile of the claiming agent's route (an 80 mm
 * ESC/POS printer when the route has none); the queue records the bytes as the job's
 * document and, in the same commit, the profile they were made for (`record`). A job that
 * cannot be rendered for that printer (a label on a receipt printer, a template past its
 * limits) answers why: the queue fails it with `template_render_failed` and the reason.
 */
export class TemplateJobRenderer implements JobRenderer {
  readonly #pool: DocumentRenderer;

  constructor(pool: DocumentRenderer) {
    this.#pool = pool;
  }

  async createFromTemplate(
    queue: QueueWrites,
    db: Db,
    companyId: number,
    input: TemplateJobToCreate,
    now: Date,
  ): Promise<JobRecord> {
    const version = await resolveTemplate(db, companyId, input.template);
    await refuseTemplateTheRouteCannotPrint(db, companyId, input.route, version.kind);
    return createTemplateJob(queue, db, companyId, input, now);
  }

  async renderClaimed(db: Db, job: ClaimedTemplateJob): Promise<JobRendering> {
    const templateJob = await readTemplateJob(db, job.companyId, job.jobId);
    if (!templateJob) return { rendered: false, message: 'The job has no template.' };
    const profile: PrinterProfile =
      (await readRouteProfile(db, job.agentRowId, job.route)) ?? defaultProfile;
    let content: Buffer;
    try {
      ({ bytes: content } = await this.#pool.render({
        companyId: job.companyId,
        template: sourceOf(templateJob.version),
        data: job.data,
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
    return {
      rendered: true,
      content,
      contentType: printerContentType[profile.language],
      record: (trx) => markRendered(trx, job.jobId, profile),
    };
  }

  copyForReprint(trx: Db, fromJobId: number, toJobId: number): Promise<void> {
    return copyTemplateJob(trx, fromJobId, toJobId);
  }
}
