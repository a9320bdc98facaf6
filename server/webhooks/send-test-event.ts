import { type DeliveryRecord, testEventType } from '../../shared/webhooks.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import { getEndpointRow, toEndpointRecord } from './endpoints.ts';
import { bodyOf, newEventId, outboxOf } from './outbox.ts';
import { toDeliveryRecord } from './read-deliveries.ts';

/**
 * Queues a `webhook.test` event for this endpoint alone, whatever it subscribes to; its
 * data is the endpoint as the API shows it. Sent like any event: signed, retried.
 */
export async function sendTestEvent(
  storage: Storage,
  companyId: number,
  endpointId: number,
  now: Date,
): Promise<DeliveryRecord> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const endpoint = await getEndpointRow(trx, companyId, endpointId);
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
    outboxOf(storage).announce();
    return toDeliveryRecord(row);
  });
}
