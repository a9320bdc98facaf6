/**
 * What webhooks offer the other folders: the outbox, where an operation records the events
 * of its change in the change's own transaction. Webhooks own the endpoints and their
 * deliveries.
 */
export type { EventData, NewEvent, OutboxDeps, WebhookOutbox } from './outbox.ts';
