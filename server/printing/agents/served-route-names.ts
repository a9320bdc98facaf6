import type { Db } from '../../storage/db.ts';

/** The names of the routes an agent of the company serves now (none if it is not registered). */
export async function servedRouteNames(db: Db, companyId: number, uuid: string): Promise<string[]> {
  const served = await db
    .selectFrom('print_routes')
    .innerJoin('print_agents', 'print_agents.id', 'print_routes.agent_id')
    .select('print_routes.name')
    .where('print_agents.uuid', '=', uuid)
    .where('print_agents.company_id', '=', companyId)
    .execute();
  return served.map((route) => route.name);
}
