import type { PrinterProfile } from '../../shared/printer-profiles.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import type { VersionRow } from './records.ts';

/** A job made from a template: the version it was made from and what it was rendered for. */
export interface TemplateJob {
  version: VersionRow;
  /** The profile it was rendered for at its claim; null until then. */
  renderedProfile: PrinterProfile | null;
}

/** Records that the job was made from the version, with its data's document. */
export async function insertTemplateJob(trx: Db, values: TemplateJobValues): Promise<void> {
  await insertTemplateJobRow(trx, values);
}

interface TemplateJobValues {
  jobId: number;
  companyId: number;
  versionId: number;
  dataDocumentId: number;
}

// Compiled once (prepared): every job made from a template runs it.
const insertTemplateJobRow = prepared((db, p: TemplateJobValues) =>
  db.insertInto('print_template_jobs').values({
    job_id: p.jobId,
    company_id: p.companyId,
    version_id: p.versionId,
    data_document_id: p.dataDocumentId,
    rendered_profile: null,
  }),
);

/** The template job's version and rendering, or undefined for a job sent as bytes. */
export async function readTemplateJob(
  db: Db,
  companyId: number,
  jobId: number,
): Promise<(TemplateJob & { dataDocumentId: number }) | undefined> {
  const row = await db
    .selectFrom('print_template_jobs as j')
    .innerJoin('print_template_versions as v', 'v.id', 'j.version_id')
    .selectAll('v')
    .select(['j.rendered_profile', 'j.data_document_id'])
    .where('j.company_id', '=', companyId)
    .where('j.job_id', '=', jobId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { rendered_profile, data_document_id, ...version } = row;
  return {
    version,
    renderedProfile:
      rendered_profile === null ? null : (JSON.parse(rendered_profile) as PrinterProfile),
    dataDocumentId: data_document_id,
  };
}

export async function markRendered(trx: Db, jobId: number, profile: PrinterProfile): Promise<void> {
  await trx
    .updateTable('print_template_jobs')
    .set({ rendered_profile: JSON.stringify(profile) })
    .where('job_id', '=', jobId)
    .execute();
}

/** A reprint keeps its original's template, data and rendering (its preview is the original's). */
export async function copyTemplateJob(trx: Db, fromJobId: number, toJobId: number): Promise<void> {
  const from = await trx
    .selectFrom('print_template_jobs')
    .selectAll()
    .where('job_id', '=', fromJobId)
    .executeTakeFirst();
  if (!from) return;
  await trx
    .insertInto('print_template_jobs')
    .values({ ...from, job_id: toJobId })
    .execute();
}
