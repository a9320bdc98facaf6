import type { PageQuery } from '../../shared/http.ts';
import type {
  AgentListing,
  JobRecord,
  PrintRoute,
  QueuedJobRecord,
} from '../../shared/printing.ts';
import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { prepared } from '../storage/prepared.ts';
import { type AgentRow, onlineSince, toAgentRecord } from './agents.ts';

/** The routes of each of these agents, in their saved order. */
async function routesOf(db: Db, agentRowIds: number[]): Promise<Map<number, PrintRoute[]>> {
  const byAgent = new Map<number, PrintRoute[]>(agentRowIds.map((id) => [id, []]));
  if (agentRowIds.length === 0) return byAgent;
  const rows = await db
    .selectFrom('print_routes')
    .select(['agent_id', 'name', 'printer', 'enabled', 'options'])
    .where('agent_id', 'in', agentRowIds)
    .orderBy('agent_id')
    .orderBy('position')
    .execute();
  for (const row of rows) {
    byAgent.get(row.agent_id)?.push({
      name: row.name,
      printer: row.printer,
      enabled: Boolean(row.enabled),
      options: JSON.parse(row.options),
    });
  }
  return byAgent;
}

/** What `online` is measured against: the time, and the heartbeat interval agents keep. */
export interface Presence {
  now: Date;
  heartbeatSeconds: number;
}

function listingsOf(
  rows: AgentRow[],
  routes: Map<number, PrintRoute[]>,
  { now, heartbeatSeconds }: Presence,
): AgentListing[] {
  return rows.map((row) => ({
    ...toAgentRecord(row, now, heartbeatSeconds),
    routes: routes.get(row.id) ?? [],
  }));
}

/** The company's agents by name, with their routes and printers as last reported. */
export async function listAgents(
  db: Db,
  companyId: number,
  page: PageQuery,
  presence: Presence,
): Promise<{ rows: AgentListing[]; total: number }> {
  const base = db.selectFrom('print_agents').where('company_id', '=', companyId);
  const total = await totalOf(base);
  const rows = await base
    .selectAll()
    .orderBy('name')
    .orderBy('id')
    .limit(page.per_page)
    .offset(offsetOf(page))
    .execute();
  const routes = await routesOf(
    db,
    rows.map((row) => row.id),
  );
  return { rows: listingsOf(rows, routes, presence), total };
}

/** One agent of the company by its UUID; another company's reads as unknown. */
export async function getAgent(
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
    .executeTakeFirst();
  if (!row) throw new NotFound('Print agent');
  const routes = await routesOf(db, [row.id]);
  return listingsOf([row], routes, presence)[0]!;
}

// Compiled once (prepared): every POST /printing/jobs runs it.
const servingAgent = prepared((db, p: { companyId: number; route: string; seenSince: string }) =>
  db
    .selectFrom('print_routes as r')
    .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
    .select('r.id')
    .where('r.company_id', '=', p.companyId)
    .where('r.name', '=', p.route)
    .where('r.enabled', '=', 1)
    .where('a.paused', '=', 0)
    .where('a.last_seen_at', '>=', p.seenSince)
    .limit(1),
);

/**
 * Whether an agent that would print a job of `route` now is there: online, not paused, and
 * serving the route (enabled). One indexed lookup (print_routes by company and name).
 */
export async function routeOnline(
  db: Db,
  companyId: number,
  route: string,
  { now, heartbeatSeconds }: Presence,
): Promise<boolean> {
  const found = await servingAgent(db, {
    companyId,
    route,
    seenSince: onlineSince(now, heartbeatSeconds),
  });
  return found.length > 0;
}

/** A job just queued, with `route_online`: whether an agent is there to print it now. */
export async function withRouteOnline(
  db: Db,
  companyId: number,
  job: JobRecord,
  presence: Presence,
): Promise<QueuedJobRecord> {
  return { ...job, route_online: await routeOnline(db, companyId, job.route, presence) };
}
