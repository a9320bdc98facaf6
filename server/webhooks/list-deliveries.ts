import type { DeliveryListQuery, DeliveryRecord } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { readPage } from '../storage/pages.ts';
import { toDeliveryRecord } from './records.ts';

/** An endpoint's deliveries, newest first (the endpoint is checked by the caller). */
export async function listDeliveries(
  db: Db,
  endpointId: number,
  query: DeliveryListQuery,
): Promise<{ rows: DeliveryRecord[]; total: number }> {
  let base = db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId);
  if (query.status) base = base.where('status', '=', query.status);
  const { rows, total } = await readPage(base, query, (list) =>
    list.selectAll().orderBy('id', 'desc'),
  );
  return { rows: rows.map(toDeliveryRecord), total };
}
