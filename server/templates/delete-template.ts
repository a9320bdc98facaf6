import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/**
 * Deletes the template: its name is free again and it makes no new job, but its versions
 * stay, so that the jobs made from them still print and preview.
 */
export async function deleteTemplate(
  db: Db,
  companyId: number,
  templateId: number,
  now: Date,
): Promise<void> {
  const stamp = isoNow(now);
  const deleted = await db
    .updateTable('print_templates')
    .set({ deleted_at: stamp, updated_at: stamp })
    .where('company_id', '=', companyId)
    .where('id', '=', templateId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (Number(deleted.numUpdatedRows) === 0) throw new NotFound('Template');
}
