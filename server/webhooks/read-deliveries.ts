import type { Selectable } from 'kysely';
import type { DeliveryListQuery, DeliveryRecord } from '../../shared/webhooks.ts';
import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import type { WebhookTables } from '../storage/tables/webhooks.ts';

export type DeliveryRow = Selectable<WebhookTables['webhook_deliveries']>;

export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_attempt_at: row.last_attempt_at,
    last_response_status: row.last_response_status,
    last_response_body: row.last_response_body,
    last_error: row.last_error,
    created_at: row.created_at,
    delivered_at: row.delivered_at,
  };
}

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

export async function getDeliveryRow(db: Db, endpointId: number, id: number): Promise<DeliveryRow> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new NotFound('Webhook delivery');
  return row;
}
