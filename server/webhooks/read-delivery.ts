import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import type { DeliveryRow } from './records.ts';

/** The endpoint's delivery, or 404. */
export async function readDeliveryRow(
  db: Db,
  endpointId: number,
  id: number,
): Promise<DeliveryRow> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFound('Webhook delivery');
  return row;
}
