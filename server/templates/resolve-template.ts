import { unknownReference } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import type { VersionRow } from './records.ts';

// Compiled once (prepared): every job made from a template runs one of these.
const latestVersion = (by: 't.id' | 't.name') =>
  prepared((db, p: { companyId: number; template: string | number }) =>
    db
      .selectFrom('print_templates as t')
      .innerJoin('print_template_versions as v', (join) =>
        join.onRef('v.template_id', '=', 't.id').onRef('v.version', '=', 't.version'),
      )
      .selectAll('v')
      .where('t.company_id', '=', p.companyId)
      .where('t.deleted_at', 'is', null)
      .where(by, '=', p.template as never),
  );
const latestById = latestVersion('t.id');
const latestByName = latestVersion('t.name');

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
  const statement = typeof template === 'number' ? latestById : latestByName;
  const [row] = await statement(db, { companyId, template });
  if (!row) throw unknownReference('template');
  return row as VersionRow;
}
