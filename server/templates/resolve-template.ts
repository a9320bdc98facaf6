import { unknownReference } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import type { VersionRow } from './records.ts';

/**
 * The latest version of the company's template named by `template` (its name, or its id),
 * not deleted. Another company's template, or none, is the same 422 on `template`: nothing
 * tells a caller what another company has, and nothing of it is rendered.
 */
export async function resolveTemplate(
  db: Db,
  companyId: number,
  template: string | number,
): Promise<VersionRow> {
  const row = await db
    .selectFrom('print_templates as t')
    .innerJoin('print_template_versions as v', (join) =>
      join.onRef('v.template_id', '=', 't.id').onRef('v.version', '=', 't.version'),
    )
    .selectAll('v')
    .where('t.company_id', '=', companyId)
    .where('t.deleted_at', 'is', null)
    .where(typeof template === 'number' ? 't.id' : 't.name', '=', template)
    .executeTakeFirst();
  if (!row) throw unknownReference('template');
  return row;
}
