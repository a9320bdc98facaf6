/**
 * What webhooks offer the other folders: the outbox, where an operation records the events
 * of its change in the change's own transaction, and the endpoints' health as the console
 * shows it. Webhooks own the endpoints and their deliveries.
 */
export { listFailingEndpoints, readEndpointMarks } from './endpoint-health.ts';
export {
  type EventData,
  insertOutboxRows,
  insertOutboxRowsNow,
  type NewEvent,
  type OutboxDeps,
  type OutboxRow,
  rowsOfEvent,
  type WebhookOutbox,
} from './outbox.ts';
