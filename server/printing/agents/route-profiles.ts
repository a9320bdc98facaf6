import type { PrinterProfile } from '../../../shared/printer-profiles.ts';
import type { Db } from '../../storage/db.ts';

/**
 * The profiles of a route as every agent of the company serving it (enabled) has it, online
 * or not, null where an agent gave the route none. One indexed read: the route's rows by
 * company and name.
 */
export async function routeProfiles(
  db: Db,
  companyId: number,
  route: string,
): Promise<(PrinterProfile | null)[]> {
  const rows = await db
    .selectFrom('print_routes')
    .select('profile')
    .where('company_id', '=', companyId)
    .where('name', '=', route)
    .where('enabled', '=', 1)
    .execute();
  return rows.map((row) =>
    row.profile === null ? null : (JSON.parse(row.profile) as PrinterProfile),
  );
}

/** The profile of the agent's route, or null when the route has none. */
export async function readRouteProfile(
  db: Db,
  agentRowId: number,
  route: string,
): Promise<PrinterProfile | null> {
  const row = await db
    .selectFrom('print_routes')
    .select('profile')
    .where('agent_id', '=', agentRowId)
    .where('name', '=', route)
    .executeTakeFirst();
  return row?.profile ? (JSON.parse(row.profile) as PrinterProfile) : null;
}
