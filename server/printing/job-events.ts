import type { WebhookEventType } from '../../shared/webhooks.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import { type JobRow, toJobRecord } from './jobs.ts';

export type JobEventType = Extract<WebhookEventType, `print_job.${string}`>;

/**
 * Records the job's webhook event in the transaction of its change (`db`); its data is the
 * job as `GET /printing/jobs/{job}` shows it, without the trail of events. Costs nothing
 * but a look at a cache when no endpoint of the company takes the type.
 */
export function recordJobEvent(
  storage: Storage,
  db: Db,
  type: JobEventType,
  row: JobRow,
): void | Promise<void> {
  return recordEvent(storage, db, row.company_id, type, row.updated_at, () => toJobRecord(row));
}
