import type { TemplateRecord, UpdateTemplateBody } from '../../shared/templates.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockRows } from '../storage/locks.ts';
import { isoNow } from '../time.ts';
import { checkVersion, type VersionContent } from './check-template.ts';
import { insertVersion, nameTaken } from './create-template.ts';
import { readTemplateRows } from './read-template.ts';
import { assetsOf, toTemplateRecord } from './records.ts';

/**
 * Saves the fields given over the latest version as a new version (its number + 1); the
 * versions before it stay as they were, for the jobs made from them.
 */
export async function updateTemplate(
  storage: Storage,
  db: Db,
  companyId: number,
  templateId: number,
  input: UpdateTemplateBody,
  now: Date,
): Promise<TemplateRecord> {
  return storage.transaction(db, async (trx) => {
    const locked = trx.selectFrom('print_templates').select('id').where('id', '=', templateId);
    await lockRows(trx, locked, 'no key update').execute();
    const { template, latest } = await readTemplateRows(trx, companyId, templateId);
    const name = input.name ?? template.name;
    const content: VersionContent = {
      kind: template.kind,
      source: input.source ?? latest.source,
      data_schema:
        input.data_schema !== undefined
          ? input.data_schema
          : latest.data_schema === null
            ? null
            : JSON.parse(latest.data_schema),
      sample_data:
        input.sample_data !== undefined
          ? input.sample_data
          : latest.sample_data === null
            ? null
            : JSON.parse(latest.sample_data),
      assets: input.assets ?? assetsOf(latest),
    };
    checkVersion(content);
    if (name !== template.name) {
      const taken = await trx
        .selectFrom('print_templates')
        .select('id')
        .where('company_id', '=', companyId)
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (taken) throw nameTaken();
    }
    const stamp = isoNow(now);
    const version = template.version + 1;
    const saved = await insertVersion(trx, {
      ...content,
      companyId,
      templateId,
      version,
      name,
      stamp,
    });
    const updated = await trx
      .updateTable('print_templates')
      .set({ name, version, updated_at: stamp })
      .where('id', '=', templateId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return toTemplateRecord(updated, saved);
  });
}
