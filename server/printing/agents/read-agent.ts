import type { AgentListing } from '../../../shared/printing.ts';
import { NotFound } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { routesOf } from './list-agents.ts';
import type { Presence } from './presence.ts';
import { toAgentListing } from './records.ts';

/** One agent of the company by its UUID; another company's reads as unknown. */
export async function readAgent(
  db: Db,
  companyId: number,
  uuid: string,
  presence: Presence,
): Promise<AgentListing> {
  const row = await db
    .selectFrom('print_agents')
    .selectAll()
    .where('uuid', '=', uuid.toLowerCase())
    .where('company_id', '=', companyId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new NotFound('Print agent');
  const routes = await routesOf(db, [row.id]);
  return toAgentListing(row, routes.get(row.id) ?? [], presence);
}
