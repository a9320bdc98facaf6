import { z } from 'zod';
import { idParam, pageQuery, recordId, timestamp } from './http.ts';

/**
 * Contracts of webhooks (docs/webhooks.md): endpoints a company registers, the events they
 * subscribe to, and the deliveries the server makes to them, signed by Standard Webhooks
 * 1.0.
 */

/**
 * The event types an endpoint may subscribe to: the one registry. docs/webhooks.md
 * describes each, and test/webhooks/registry.test.ts keeps the two in step.
 */
export const webhookEventTypes = [
  'print_job.created',
  'print_job.claimed',
  'print_job.printed',
  'print_job.failed',
  'print_job.expired',
  'print_job.cancelled',
  'print_job.waiting',
  'print_job.held',
  'agent.online',
  'agent.offline',
  'printer.state_changed',
  'printer.attention',
  'printer.recovered',
  'stock.changed',
  'offer.status_changed',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

/** Sent by `POST /webhooks/{id}/test` only; nobody subscribes to it. */
export const testEventType = 'webhook.test';

/** Every type a delivery can carry. */
export type DeliveredEventType = WebhookEventType | typeof testEventType;

/** At most this many endpoints per company: each event is written once per endpoint. */
export const maxEndpointsPerCompany = 20;

/** `["*"]` for every type, or a list of known types (no duplicates). */
export const eventListSchema = z
  .array(z.enum([...webhookEventTypes, '*']))
  .min(1)
  .max(webhookEventTypes.length + 1)
  .superRefine((events, ctx) => {
    if (events.includes('*') && events.length > 1) {
      ctx.addIssue({
        code: 'custom',
        message: 'The :attribute field must be ["*"] alone or a list of event types.',
      });
    }
    if (new Set(events).size !== events.length) {
      ctx.addIssue({ code: 'custom', message: 'The :attribute field has a duplicate value.' });
    }
  })
  // The two rules as JSON Schema states them (the OpenAPI document).
  .meta({
    uniqueItems: true,
    anyOf: [{ maxItems: 1 }, { items: { not: { const: '*' } } }],
  });
export type EventList = z.infer<typeof eventListSchema>;

/** The form of the URL only; its scheme and address are checked by the server's policy. */
const urlSchema = z
  .string()
  .trim()
  .max(2000)
  .refine((value) => URL.canParse(value), 'The :attribute field must be a valid URL.')
  .meta({ format: 'uri' });

const descriptionSchema = z.string().trim().max(255);

export const createEndpointBody = z.object({
  url: urlSchema,
  events: eventListSchema,
  description: descriptionSchema.nullish(),
});
export type CreateEndpointBody = z.infer<typeof createEndpointBody>;

export const updateEndpointBody = z.object({
  url: urlSchema.optional(),
  events: eventListSchema.optional(),
  description: descriptionSchema.nullish(),
  /** `true` re-enables an endpoint the server disabled (and clears why). */
  enabled: z.boolean().optional(),
});
export type UpdateEndpointBody = z.infer<typeof updateEndpointBody>;

export const endpointRecord = z.object({
  id: recordId,
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  /** Why the endpoint is disabled: by the owner, or by the server after 5 days of failures. */
  disabled_reason: z.string().nullable(),
  disabled_at: timestamp.nullable(),
  /** The first failed attempt of the current run of failures; null after a success. */
  failing_since: timestamp.nullable(),
  /** Until then, deliveries are signed with the previous secret too (after a rotation). */
  previous_secret_expires_at: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type EndpointRecord = z.infer<typeof endpointRecord>;

/** The answer to creation: the record and its signing secret, shown this once. */
export const createdEndpointRecord = endpointRecord.extend({ secret: z.string() });
export type CreatedEndpointRecord = z.infer<typeof createdEndpointRecord>;

export const rotatedSecretRecord = z.object({
  secret: z.string(),
  previous_secret_expires_at: timestamp,
});
export type RotatedSecretRecord = z.infer<typeof rotatedSecretRecord>;

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const deliveryRecord = z.object({
  id: recordId,
  /** The `webhook-id` header: the same on every attempt, and for every endpoint of one event. */
  event_id: z.string(),
  type: z.string(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int().min(0),
  /** When it is tried next, while pending. */
  next_attempt_at: timestamp.nullable(),
  last_attempt_at: timestamp.nullable(),
  /** The HTTP status of the last answer, if one came. */
  last_response_status: z.number().int().nullable(),
  /** The first 1 KiB of the last answer's body. */
  last_response_body: z.string().nullable(),
  /** What went wrong on the last attempt when no 2xx came (a timeout, a refused address). */
  last_error: z.string().nullable(),
  created_at: timestamp,
  delivered_at: timestamp.nullable(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecord>;

export const endpointParams = z.object({ id: idParam });
export const deliveryParams = z.object({ id: idParam, delivery: idParam });

export const deliveryListQuery = pageQuery.extend({
  status: z.enum(deliveryStatuses).optional(),
});
export type DeliveryListQuery = z.infer<typeof deliveryListQuery>;

/** What every delivery's body is: the event's type, when it happened, and the record. */
export interface EventBody {
  type: DeliveredEventType;
  /** When the change happened (ISO 8601 UTC), not when this attempt was made. */
  timestamp: string;
  data: unknown;
}
