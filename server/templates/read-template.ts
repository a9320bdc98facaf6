import type { TemplateRecord, TemplateVersionRecord } from '../../shared/templates.ts';
import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import {
  type TemplateRow,
  toTemplateRecord,
  toTemplateVersionRecord,
  type VersionRow,
} from './records.ts';

/** The company's template (not deleted) and its latest version, or a 404. */
export async function readTemplateRows(
  db: Db,
  companyId: number,
  templateId: number,
): Promise<{ template: TemplateRow; latest: VersionRow }> {
  const template = await db
    .selectFrom('print_templates')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', templateId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!template) throw new NotFound('Template');
  const latest = await readVersionRow(db, companyId, template.id, template.version);
  return { template, latest };
}

/** One version of the company's template (a deleted template's too: jobs keep theirs), or a 404. */
export async function readVersionRow(
  db: Db,
  companyId: number,
  templateId: number,
  version: number,
): Promise<VersionRow> {
  const row = await db
    .selectFrom('print_template_versions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('template_id', '=', templateId)
    .where('version', '=', version)
    .executeTakeFirst();
  if (!row) throw new NotFound('Template version');
  return row;
}

export async function readTemplate(
  db: Db,
  companyId: number,
  templateId: number,
): Promise<TemplateRecord> {
  const { template, latest } = await readTemplateRows(db, companyId, templateId);
  return toTemplateRecord(template, latest);
}

/** A version of a template that is not deleted, as `GET …/versions/{version}` shows it. */
export async function readTemplateVersion(
  db: Db,
  companyId: number,
  templateId: number,
  version: number,
): Promise<TemplateVersionRecord> {
  await readTemplateRows(db, companyId, templateId);
  return toTemplateVersionRecord(await readVersionRow(db, companyId, templateId, version));
}
