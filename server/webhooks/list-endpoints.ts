import type { EndpointRecord } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { toEndpointRecord } from './records.ts';

/** The company's endpoints, oldest first. */
export async function listEndpoints(db: Db, companyId: number): Promise<EndpointRecord[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  return rows.map(toEndpointRecord);
}
