import type { PageQuery } from '../../shared/http.ts';
import type { TemplateRecord } from '../../shared/templates.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { toTemplateRecord } from './records.ts';

/** The company's templates by name, a page at a time, each with its latest version. */
export async function listTemplates(
  db: Db,
  companyId: number,
  page: PageQuery,
): Promise<{ rows: TemplateRecord[]; total: number }> {
  const live = db
    .selectFrom('print_templates')
    .where('company_id', '=', companyId)
    .where('deleted_at', 'is', null);
  const templates = await live
    .selectAll()
    .orderBy('name')
    .limit(page.per_page)
    .offset(offsetOf(page))
    .execute();
  const total = await totalOf(live);
  if (templates.length === 0) return { rows: [], total };
  const versions = await db
    .selectFrom('print_template_versions as v')
    .innerJoin('print_templates as t', (join) =>
      join.onRef('t.id', '=', 'v.template_id').onRef('t.version', '=', 'v.version'),
    )
    .selectAll('v')
    .where(
      'v.template_id',
      'in',
      templates.map((template) => template.id),
    )
    .execute();
  const byTemplate = new Map(versions.map((version) => [version.template_id, version]));
  return {
    rows: templates.map((template) => toTemplateRecord(template, byTemplate.get(template.id)!)),
    total,
  };
}
