import { type DeliveryRecord, testEventType } from '../../shared/webhooks.ts';
import { Conflict } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { bodyOf, newEventId, type OutboxDeps } from './outbox.ts';
import { readEndpointRow } from './read-endpoint.ts';
import { toDeliveryRecord, toEndpointRecord } from './records.ts';

/**
 * Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to; its
 * data is the endpoint as the API shows it. Sent like any event: signed, retried.
 */
export async function sendTestEvent(
  { storage, outbox }: OutboxDeps,
  db: Db,
  companyId: number,
  endpointId: number,
  now: Date,
): Promise<DeliveryRecord> {
  const stamp = isoNow(now);
  return storage.transaction(db, async (trx) => {
    const endpoint = await readEndpointRow(trx, companyId, endpointId);
    if (!endpoint.enabled) {
      throw new Conflict(`Webhook ${endpointId} is disabled; enable it before testing it.`);
    }
    const row = await trx
      .insertInto('webhook_deliveries')
      .values({
        company_id: companyId,
        endpoint_id: endpointId,
        event_id: newEventId(),
        type: testEventType,
        body: bodyOf(testEventType, stamp, toEndpointRecord(endpoint)),
        status: 'pending',
        attempts: 0,
        queued_attempts: 0,
        next_attempt_at: stamp,
        created_at: stamp,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    outbox.announce(trx);
    return toDeliveryRecord(row);
  });
}
