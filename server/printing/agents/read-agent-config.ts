import type { AgentConfig } from '../../../shared/printing.ts';
import type { ServerConfig } from '../../config.ts';
import type { Db } from '../../storage/db.ts';
import type { PrintQueueStore } from '../store/queue-store.ts';
import type { AgentRef } from './agent-identities.ts';
import { readRouteList } from './read-route-list.ts';
import { toAgentRecord } from './records.ts';

/**
 * What an agent reads at start-up (`GET /printing/config`): its company, itself, its routes,
 * the route names a settings screen should offer, and the intervals it keeps.
 */
export async function readAgentConfig(
  store: PrintQueueStore,
  db: Db,
  agent: AgentRef,
  company: { id: number; name: string },
  config: ServerConfig,
  now: Date,
): Promise<AgentConfig> {
  const row = await db
    .selectFrom('print_agents')
    .selectAll()
    .where('id', '=', agent.rowId)
    .executeTakeFirstOrThrow();
  const routes = await readRouteList(db, agent.rowId);
  const served = await db
    .selectFrom('print_routes')
    .select('name')
    .distinct()
    .where('company_id', '=', agent.companyId)
    .execute();
  // Jobs waiting on a route nobody serves are what a settings screen must offer; the
  // history of every route ever used would grow without bound (and read every job).
  const queued = await store.queuedRoutes(db, agent.companyId);
  const names = new Set([...served.map((r) => r.name), ...queued]);
  return {
    company,
    agent: toAgentRecord(row, { now }),
    routes,
    routes_version: row.routes_version,
    route_names: [...names].sort(),
    intervals: {
      long_poll_wait_seconds: config.longPollWaitSeconds,
      heartbeat_seconds: config.heartbeatSeconds,
      lease_seconds: config.leaseSeconds,
    },
  };
}
