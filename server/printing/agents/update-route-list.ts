import { sql } from 'kysely';
import type { PrintRoute } from '../../../shared/printing.ts';
import type { Storage } from '../../storage/database.ts';
import type { Db } from '../../storage/db.ts';
import { lockRows } from '../../storage/locks.ts';
import type { AgentRef } from './agent-identities.ts';
import { readRouteList } from './read-route-list.ts';
import { storedBackupPrinters } from './records.ts';

/** The routes as saved, and the agent's routes version this change made. */
export interface SavedRoutes {
  routes: PrintRoute[];
  routes_version: number;
}

/**
 * Replaces the agent's routes with exactly these. On PostgreSQL the agent row is locked
 * first (`FOR NO KEY UPDATE`, which the routes' foreign key does not conflict with): two
 * replacements at once (the agent retrying through another instance) would otherwise both
 * delete, then both insert, and the second hit the unique (agent, name) index — a 500.
 * Every replacement moves the agent's `routes_version` on: a running agent reads it in its
 * heartbeat's answer and fetches the routes again when it changed (docs/agent.md).
 */
export async function updateRouteList(
  storage: Storage,
  db: Db,
  agent: AgentRef,
  routes: PrintRoute[],
): Promise<SavedRoutes> {
  return storage.transaction(db, async (trx) => {
    const agentRow = trx.selectFrom('print_agents').select('id').where('id', '=', agent.rowId);
    await lockRows(trx, agentRow, 'no key update').execute();
    await trx
      .updateTable('print_agents')
      .set({ routes_version: sql<number>`routes_version + 1` })
      .where('id', '=', agent.rowId)
      .execute();
    await trx.deleteFrom('print_routes').where('agent_id', '=', agent.rowId).execute();
    if (routes.length > 0) {
      await trx
        .insertInto('print_routes')
        .values(
          routes.map((route, position) => ({
            company_id: agent.companyId,
            agent_id: agent.rowId,
            position,
            name: route.name,
            printer: route.printer,
            backup_printers: storedBackupPrinters(route.backup_printers ?? []),
            enabled: route.enabled ? 1 : 0,
            options: JSON.stringify(route.options),
            profile: route.profile ? JSON.stringify(route.profile) : null,
          })),
        )
        .execute();
    }
    const { routes_version } = await trx
      .selectFrom('print_agents')
      .select('routes_version')
      .where('id', '=', agent.rowId)
      .executeTakeFirstOrThrow();
    return { routes: await readRouteList(trx, agent.rowId), routes_version };
  });
}
