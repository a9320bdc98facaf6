import { type JobRecord, type PrintOptions, templateDataType } from '../../shared/printing.ts';
import { expiryOf } from '../printing/jobs/create-job.ts';
import type { PrintQueue } from '../printing/jobs/print-queue.ts';
import { toJobRecord } from '../printing/jobs/records.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { checkData } from './data-check.ts';
import { renderLiquid } from './liquid.ts';
import { resolveTemplate } from './resolve-template.ts';
import { insertTemplateJob } from './template-jobs.ts';

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
}

/**
 * A queued job made from the latest version of a template: its data is checked against the
 * version's `data_schema` (a 422 naming each problem's path) and run through Liquid once, so
 * that data that breaks the template or its limits is a 422 now rather than a failed job
 * later. The printer's bytes are made when an agent claims it, for that agent's route
 * profile (`render-claimed-job.ts`): a job is rendered once, for the printer that prints it.
 * Until then its document is the data, as JSON.
 */
export async function createTemplateJob(
  { storage, store }: PrintQueue,
  db: Db,
  companyId: number,
  input: TemplateJobToCreate,
  now: Date,
): Promise<JobRecord> {
  const version = await resolveTemplate(db, companyId, input.template);
  checkData(version.data_schema, input.data);
  renderLiquid(version.kind, version.source, input.data);
  const row = await storage.transaction(db, async (trx) => {
    const job = await store.create(trx, {
      companyId,
      content: Buffer.from(JSON.stringify(input.data), 'utf8'),
      route: input.route,
      title: input.title ?? null,
      contentType: templateDataType,
      copies: input.copies,
      priority: input.priority,
      options: JSON.stringify(input.options),
      createdAt: isoNow(now),
      expiresAt: expiryOf(input.expires_in, now),
    });
    await insertTemplateJob(trx, {
      jobId: job.id,
      companyId,
      versionId: version.id,
      dataDocumentId: job.document_id,
    });
    return job;
  });
  return toJobRecord(row);
}
