import type { ContentType, JobRecord, PrintOptions } from '../../../shared/printing.ts';
import type { Storage } from '../../storage/database.ts';
import type { Db } from '../../storage/db.ts';
import type { PrintQueueStore } from '../store/queue-store.ts';

/** The code of a template job that could not be rendered for its printer. */
export const renderFailedCode = 'template_render_failed';

/**
 * What the print queue asks of whatever renders template jobs. The queue defines it and
 * knows nothing more of templates; `server/templates/` implements it (`TemplateJobRenderer`)
 * and the wiring hands it to the queue's service (`server/app.ts`). So printing never
 * imports templates, and templates reaches printing only through the queue's contracts.
 */
export interface JobRenderer {
  /**
   * Queues a job made from a template (`POST /printing/jobs` with `template` and `data`):
   * the template resolved, refused when no printer of the route can print its kind, its
   * data checked, then the job queued on `queue` with its template in one commit; its
   * document is the data until its claim renders it.
   */
  createFromTemplate(
    queue: QueueWrites,
    db: Db,
    companyId: number,
    input: TemplateJobToCreate,
    now: Date,
  ): Promise<JobRecord>;
  /**
   * A template job just claimed, rendered for the printer of the claiming agent's route, on
   * the render pool's threads (never in the claim's transaction: the claim has committed).
   * A job that cannot be rendered for that printer answers why (`rendered: false`): the
   * queue fails it with `template_render_failed` and that reason.
   */
  renderClaimed(db: Db, job: ClaimedTemplateJob): Promise<JobRendering>;
  /** A reprint keeps its original's template, data and rendering, in the reprint's `trx`. */
  copyForReprint(trx: Db, fromJobId: number, toJobId: number): Promise<void>;
}

/** What a template job is queued with: the storage (its transaction) and the queue's store. */
export interface QueueWrites {
  storage: Storage;
  store: PrintQueueStore;
}

/** A claimed template job: whose, on which route, for which agent, and its data. */
export interface ClaimedTemplateJob {
  companyId: number;
  jobId: number;
  route: string;
  /** The claiming agent's row id: its route says which printer the job is rendered for. */
  agentRowId: number;
  /** The job's document before its rendering: the data, as JSON text. */
  data: Buffer;
}

export type JobRendering =
  | {
      rendered: true;
      /** The bytes the agent prints, and what they are. */
      content: Buffer;
      contentType: ContentType;
      /**
       * Writes what the renderer keeps of this rendering (the profile it was made for), in
       * the transaction (`trx`) that records the bytes as the job's document.
       */
      record(trx: Db): Promise<void>;
    }
  | { rendered: false; message: string };

/** A job from a template, as `POST /printing/jobs` gives it. */
export interface TemplateJobToCreate {
  route: string;
  title?: string | undefined;
  template: string | number;
  data: Record<string, unknown>;
  copies: number;
  priority: number;
  options: PrintOptions;
  expires_in?: number | undefined;
  /** The server's hold limit, for a job without `expires_in`. */
  holdSeconds?: number | undefined;
}
