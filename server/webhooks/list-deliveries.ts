import type { DeliveryListQuery, DeliveryRecord } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { toDeliveryRecord } from './records.ts';

/** An endpoint's deliveries, newest first (the endpoint is checked by the caller). */
export async function listDeliveries(
  db: Db,
  endpointId: number,
  query: DeliveryListQuery,
): Promise<{ rows: DeliveryRecord[]; total: number }> {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (query.status) base = base.where('status', '=', query.status);
  const total = await totalOf(base);
  const rows = await base
    .selectAll()
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: rows.map(toDeliveryRecord), total };
}
