import { NotFound } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';

/**
 * A person names an agent ("Front till" instead of two agents both called "vm"): the name
 * stays when the agent registers again (032_agent_names). Another company's agent: 404.
 */
export async function renameAgent(
  db: Db,
  companyId: number,
  uuid: string,
  name: string,
  now: Date,
): Promise<void> {
  const renamed = await db
    .updateTable('print_agents')
    .set({ name, named_in_console: 1, updated_at: isoNow(now) })
    .where('uuid', '=', uuid)
    .where('company_id', '=', companyId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (Number(renamed.numUpdatedRows) === 0) throw new NotFound('Print agent');
}
