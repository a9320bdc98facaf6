import type { PageQuery } from '../../../shared/http.ts';
import type { AgentListing, PrintRoute } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { readPage } from '../../storage/pages.ts';
import type { Presence } from './presence.ts';
import { toAgentListing, toRouteRecord } from './records.ts';

/** The routes of each of these agents, in their saved order. */
export async function routesOf(db: Db, agentRowIds: number[]): Promise<Map<number, PrintRoute[]>> {
  const byAgent = new Map<number, PrintRoute[]>(agentRowIds.map((id) => [id, []]));
  if (agentRowIds.length === 0) return byAgent;
  const rows = await db
    .selectFrom('print_routes')
    .select(['agent_id', 'name', 'printer', 'backup_printers', 'enabled', 'options', 'profile'])
    .where('agent_id', 'in', agentRowIds)
    .orderBy('agent_id')
    .orderBy('position')
    .execute();
  for (const row of rows) byAgent.get(row.agent_id)?.push(toRouteRecord(row));
  return byAgent;
}

/** The company's agents by name, with their routes and printers as last reported. */
export async function listAgents(
  db: Db,
  companyId: number,
  page: PageQuery,
  presence: Presence,
): Promise<{ rows: AgentListing[]; total: number }> {
  const base = db
    .selectFrom('print_agents')
    .where('company_id', '=', companyId)
    // Removed in the console (remove-agent.ts): hidden until it registers again.
    .where('removed_at', 'is', null);
  const { rows, total } = await readPage(base, page, (list) =>
    list.selectAll().orderBy('name').orderBy('id'),
  );
  const routes = await routesOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    rows: rows.map((row) => toAgentListing(row, routes.get(row.id) ?? [], presence)),
    total,
  };
}
