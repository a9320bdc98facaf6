import type { Storage } from '../storage/database.ts';
import { getEndpointRow } from './endpoints.ts';
import { endpointsChanged } from './outbox.ts';

/** Deletes the endpoint and its deliveries, sent or not. */
export async function deleteEndpoint(
  storage: Storage,
  companyId: number,
  id: number,
): Promise<void> {
  await storage.transaction(async (trx) => {
    await getEndpointRow(trx, companyId, id, { lock: storage.dialect === 'postgres' });
    await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
    await endpointsChanged(storage, trx, companyId);
  });
}
