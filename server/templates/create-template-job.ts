import { type JobRecord, templateDataType } from '../../shared/printing.ts';
import {
  expiryOf,
  type QueueWrites,
  type TemplateJobToCreate,
  toJobRecord,
} from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { checkJobCodes } from './check-codes.ts';
import { checkData } from './data-check.ts';
import { checkDataStrings } from './data-limits.ts';
import { sourceOf, variablesOf } from './records.ts';
import { resolveTemplate } from './resolve-template.ts';
import { insertTemplateJob } from './template-jobs.ts';
import { checkRequiredData } from './template-variables.ts';

/**
 * A queued job made from the latest version of a template, read in the job's own
 * transaction (the job records the version that was latest when it committed): its data is
 * checked against the version's `data_schema`, a 422 naming each problem's path, then for
 * the paths the template reads and requires (`template-variables.ts`: `data.items` missing is
 * a 422, not a receipt without lines), its strings against the bound every render holds them to (`data-limits.ts`), and its barcodes
 * against their symbologies (`check-codes.ts`). The
 * template runs once, when an agent claims the job, for that agent's route profile
 * (`template-job-renderer.ts`): until then the job's document is the data, as JSON. Data the
 * schema lets through but the template cannot finish with (a loop past the limits) fails
 * the job at its claim with `template_render_failed` and the reason; a preview with that
 * data shows the same reason at once (docs/templates.md, "Jobs from a template").
 */
export async function createTemplateJob(
  { storage, store }: QueueWrites,
  db: Db,
  companyId: number,
  input: TemplateJobToCreate,
  now: Date,
): Promise<JobRecord> {
  checkDataStrings(input.data);
  const row = await storage.transaction(db, async (trx) => {
    const version = await resolveTemplate(trx, companyId, input.template);
    checkData(version.data_schema, input.data);
    checkRequiredData(variablesOf(version), input.data);
    checkJobCodes(sourceOf(version), input.data);
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
      expiresAt: expiryOf(input.expires_in, now, input.holdSeconds),
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
