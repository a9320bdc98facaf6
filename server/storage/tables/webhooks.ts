import type { Generated } from 'kysely';
import type { DeliveredEventType, DeliveryStatus } from '../../../shared/webhooks.ts';

/** Webhook endpoints and their deliveries, the outbox (migration 009_webhooks). */
export interface WebhookTables {
  webhook_endpoints: {
    id: Generated<number>;
    company_id: number;
    url: string;
    description: string | null;
    /** JSON array of event types, or `["*"]`. */
    events: string;
    /** 0 or 1. */
    enabled: number;
    disabled_at: string | null;
    disabled_reason: string | null;
    /** The signing secret, encrypted (`server/webhooks/secret-box.ts`). */
    secret: string;
    /** After a rotation, the replaced secret (encrypted), still signing until it expires. */
    previous_secret: string | null;
    previous_secret_expires_at: string | null;
    /** The first failed attempt since the last success; null while it succeeds. */
    failing_since: string | null;
    created_at: string;
    updated_at: string;
  };
  /**
   * The outbox: one row per event and endpoint, written in the transaction of the change.
   * No foreign key to the endpoint: a change must never fail because an endpoint was
   * deleted meanwhile (the dispatcher drops such rows).
   */
  webhook_deliveries: {
    id: Generated<number>;
    company_id: number;
    endpoint_id: number;
    /** The `webhook-id` header: `msg_` + 32 hex digits, the same on every attempt. */
    event_id: string;
    type: DeliveredEventType;
    /** The body, exactly as every attempt sends it. */
    body: string;
    status: DeliveryStatus;
    attempts: number;
    /** `attempts` when it was last queued: the retry schedule counts from there. */
    queued_attempts: number;
    /** While pending: when it is due; while an attempt is in flight: when its lease ends. */
    next_attempt_at: string | null;
    last_attempt_at: string | null;
    last_response_status: number | null;
    last_response_body: string | null;
    last_error: string | null;
    created_at: string;
    delivered_at: string | null;
  };
}
