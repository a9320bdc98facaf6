import type { Db } from '../storage/db.ts';
import type { EndpointDeps } from './endpoint-input.ts';
import { readEndpointRow } from './read-endpoint.ts';

/** Deletes the endpoint and its deliveries, sent or not. */
export async function deleteEndpoint(
  { storage, outbox }: Pick<EndpointDeps, 'storage' | 'outbox'>,
  db: Db,
  companyId: number,
  id: number,
): Promise<void> {
  await storage.transaction(db, async (trx) => {
    await readEndpointRow(trx, companyId, id, { lock: true });
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await outbox.endpointsChanged(trx, companyId);
  });
}
