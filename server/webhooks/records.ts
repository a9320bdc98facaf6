import type { Selectable } from 'kysely';
import type { DeliveryRecord, EndpointRecord } from '../../shared/webhooks.ts';
import type { WebhookTables } from '../storage/tables/webhooks.ts';

export type EndpointRow = Selectable<WebhookTables['webhook_endpoints']>;
export type DeliveryRow = Selectable<WebhookTables['webhook_deliveries']>;

/** An endpoint as the API shows it (never its secrets). */
export function toEndpointRecord(row: EndpointRow): EndpointRecord {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    enabled: Boolean(row.enabled),
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    failing_since: row.failing_since,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A delivery as the API shows it (its body is the event, sent as stored). */
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
