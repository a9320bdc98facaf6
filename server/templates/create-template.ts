import type { CreateTemplateBody, TemplateRecord } from '../../shared/templates.ts';
import { invalidField } from '../domain-errors.ts';
import { onUniqueViolation, type Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { checkVersion, type VersionContent } from './check-template.ts';
import { toTemplateRecord } from './records.ts';

export const nameTaken = () => invalidField('name', 'The name has already been taken.');

/** Writes a version of the template (its number given), as it is to be kept. */
export function insertVersion(
  trx: Db,
  values: VersionContent & {
    companyId: number;
    templateId: number;
    version: number;
    name: string;
    stamp: string;
  },
) {
  return trx
    .insertInto('print_template_versions')
    .values({
      company_id: values.companyId,
      template_id: values.templateId,
      version: values.version,
      name: values.name,
      kind: values.kind,
      source: values.source,
      data_schema: values.data_schema === null ? null : JSON.stringify(values.data_schema),
      sample_data: values.sample_data === null ? null : JSON.stringify(values.sample_data),
      assets: Object.keys(values.assets).length === 0 ? null : JSON.stringify(values.assets),
      created_at: values.stamp,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new template, its version 1; its name must be free among the company's templates. */
export async function createTemplate(
  storage: Storage,
  db: Db,
  companyId: number,
  input: CreateTemplateBody,
  now: Date,
): Promise<TemplateRecord> {
  const content: VersionContent = {
    kind: input.kind,
    source: input.source,
    data_schema: input.data_schema ?? null,
    sample_data: input.sample_data ?? null,
    assets: input.assets ?? {},
  };
  checkVersion(content);
  const stamp = isoNow(now);
  return storage.transaction(db, async (trx) => {
    const taken = await trx
      .selectFrom('print_templates')
      .select('id')
      .where('company_id', '=', companyId)
      .where('name', '=', input.name)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    if (taken) throw nameTaken();
    const template = await trx
      .insertInto('print_templates')
      .values({
        company_id: companyId,
        name: input.name,
        kind: input.kind,
        version: 1,
        created_at: stamp,
        updated_at: stamp,
        deleted_at: null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch(onUniqueViolation('print_templates', ['company_id', 'name'], nameTaken));
    const latest = await insertVersion(trx, {
      ...content,
      companyId,
      templateId: template.id,
      version: 1,
      name: input.name,
      stamp,
    });
    return toTemplateRecord(template, latest);
  });
}
