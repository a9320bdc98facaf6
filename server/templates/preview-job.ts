import type { PreviewFormat } from '../../shared/templates.ts';
import { Conflict, invalidField, NotFound } from '../domain-errors.ts';
import { type JobGuard, type PrintQueueStore, readDocumentContent } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { sourceOf } from './records.ts';
import type { Rendering } from './render/rendering.ts';
import { defaultProfile } from './render-document.ts';
import type { DocumentRenderer } from './render-pool.ts';
import { readTemplateJob } from './template-jobs.ts';

/**
 * What a job printed. `raw`: the bytes recorded (a template job's once rendered at its
 * claim). A template job in another format: rendered again from its version and data for
 * the profile it was printed with, which gives what was printed (rendering is
 * deterministic); before its claim, for an 80 mm ESC/POS printer. A job sent as bytes
 * previews only as itself (`raw`, and `text` or `pdf` when it is one). `guard`: a token bound
 * to one agent sees only the jobs that agent claimed.
 */
export async function previewJob(
  { store, renderer }: { store: PrintQueueStore; renderer: DocumentRenderer },
  db: Db,
  companyId: number,
  jobId: number,
  format: PreviewFormat,
  guard?: JobGuard,
): Promise<Rendering> {
  const job = await store.read(db, companyId, jobId);
  if (!job) throw new NotFound('Print job');
  guard?.(job);
  const templateJob = await readTemplateJob(db, companyId, jobId);
  if (templateJob && format !== 'raw') {
    const data = await readDocumentContent(db, companyId, templateJob.dataDocumentId);
    return renderer.render({
      companyId,
      template: sourceOf(templateJob.version),
      data,
      profile: templateJob.renderedProfile ?? defaultProfile,
      format,
    });
  }
  if (templateJob && templateJob.renderedProfile === null && format === 'raw') {
    throw new Conflict(`Job ${jobId} has not been claimed yet: its printer's bytes are made then.`);
  }
  const sameFormat =
    format === 'raw' ||
    (format === 'text' && job.content_type === 'text/plain') ||
    (format === 'pdf' && job.content_type === 'application/pdf');
  if (!sameFormat) {
    throw invalidField('format', `A job sent as ${job.content_type} previews as raw only.`);
  }
  const content = await store.content(db, companyId, jobId);
  if (!content) throw new NotFound('Print job');
  return { contentType: job.content_type, bytes: Buffer.from(content) };
}
