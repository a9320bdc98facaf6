import type { WebhookEventType } from './webhooks.ts';

/**
 * The event types in words, for people choosing what an endpoint hears (the console's
 * Webhooks page). Plain data, no zod: the console bundles it; the Record's type makes it name
 * every type of shared/webhooks.ts, no more, no fewer.
 */
export const webhookEventWords: Record<WebhookEventType, string> = {
  'print_job.created': 'A print job is created',
  'print_job.claimed': 'A print job is taken by an agent',
  'print_job.printed': 'A print job is printed',
  'print_job.failed': 'A print job failed',
  'print_job.expired': 'A print job expired unprinted',
  'print_job.cancelled': 'A print job is cancelled',
  'print_job.waiting': 'A print job waits (no agent or printer can print it)',
  'print_job.held': 'A print job is held',
  'agent.online': 'An agent comes online',
  'agent.offline': 'An agent goes offline',
  'printer.state_changed': 'A printer changes state',
  'printer.attention': 'A printer needs attention',
  'printer.recovered': 'A printer recovered',
  'stock.changed': 'Stock changes',
  'offer.status_changed': "An offer's status changes",
};
