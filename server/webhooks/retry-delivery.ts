import type { DeliveryRecord } from '../../shared/webhooks.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import { getEndpointRow } from './endpoints.ts';
import { outboxOf } from './outbox.ts';
import { getDeliveryRow, toDeliveryRecord } from './read-deliveries.ts';

/**
 * Queues a failed or delivered delivery again, due now, with the same `webhook-id` and
 * body. Its retry schedule starts again from the beginning; `attempts` keeps counting. The
 * endpoint must be enabled. A pending one is refused: it may be in flight at this moment,
 * and making it due again could send it twice at once.
 */
export async function retryDelivery(
  storage: Storage,
  companyId: number,
  endpointId: number,
  deliveryId: number,
  now: Date,
): Promise<DeliveryRecord> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const endpoint = await getEndpointRow(trx, companyId, endpointId, {
      lock: storage.dialect === 'postgres',
    });
    const existing = await getDeliveryRow(trx, endpointId, deliveryId);
    if (!endpoint.enabled) {
      throw new Conflict(
        `Webhook ${endpointId} is disabled; enable it (PATCH enabled: true) before retrying its deliveries.`,
      );
    }
    if (existing.status === 'pending') {
      throw new Conflict(
        `Delivery ${deliveryId} is pending: it is tried again at ${existing.next_attempt_at}.`,
      );
    }
    const row = await trx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        next_attempt_at: stamp,
        queued_attempts: existing.attempts,
      })
      .where('id', '=', deliveryId)
      .where('status', '=', existing.status)
      .returningAll()
      .executeTakeFirstOrThrow();
    outboxOf(storage).announce();
    return toDeliveryRecord(row);
  });
}
