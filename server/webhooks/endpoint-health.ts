import type { OverviewRecord } from '../../shared/console.ts';
import type { Db } from '../storage/db.ts';

/** The company's endpoints that are failing now, oldest first (the console's overview). */
export async function listFailingEndpoints(
  db: Db,
  companyId: number,
): Promise<OverviewRecord['failing_webhooks']> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'failing_since'])
    .where('company_id', '=', companyId)
    .where('failing_since', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((e) => ({ id: e.id, url: e.url, failing_since: e.failing_since! }));
}

/**
 * One line per endpoint of the company, which changes when the endpoint is added, changed
 * (its address, its events), removed, starts or stops failing, or is switched on or off (the console's live pages: server/console/read-company-version.ts).
 */
export async function readEndpointMarks(db: Db, companyId: number): Promise<string[]> {
  const endpoints = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'events', 'failing_since', 'enabled'])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  return endpoints.map((e) => [e.id, e.url, e.events, e.failing_since, e.enabled].join());
}
