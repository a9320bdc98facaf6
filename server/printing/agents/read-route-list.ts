import type { PrintRoute } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { toRouteRecord } from './records.ts';

/** The agent's routes, in its saved order. */
export async function readRouteList(db: Db, agentRowId: number): Promise<PrintRoute[]> {
  const rows = await db
    .selectFrom('print_routes')
    .select(['name', 'printer', 'backup_printers', 'enabled', 'options', 'profile'])
    .where('agent_id', '=', agentRowId)
    .orderBy('position')
    .execute();
  return rows.map(toRouteRecord);
}

/** The names of the agent's enabled routes: what its long-poll waits on. */
export async function enabledRouteNames(db: Db, agentRowId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('print_routes')
    .select('name')
    .where('agent_id', '=', agentRowId)
    .where('enabled', '=', 1)
    .execute();
  return rows.map((row) => row.name);
}
