import type { DeliveryRecord } from '../../shared/webhooks.ts';
import { Conflict } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { OutboxDeps } from './outbox.ts';
import { readDeliveryRow } from './read-delivery.ts';
import { readEndpointRow } from './read-endpoint.ts';
import { toDeliveryRecord } from './records.ts';

/**
 * Queues a failed or delivered delivery again, due now, with the same `webhook-id` and
 * body. Its retry schedule starts again from the beginning; `attempts` keeps counting. The
 * endpoint must be enabled. A pending one is refused: it may be in flight at this moment,
 * and making it due again could send it twice at once.
 */
export async function retryDelivery(
  { storage, outbox }: OutboxDeps,
  db: Db,
  companyId: number,
  endpointId: number,
  deliveryId: number,
  now: Date,
): Promise<DeliveryRecord> {
  const stamp = isoNow(now);
  return storage.transaction(db, async (trx) => {
    const endpoint = await readEndpointRow(trx, companyId, endpointId, { lock: true });
    const existing = await readDeliveryRow(trx, endpointId, deliveryId);
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
    outbox.announce(trx);
    return toDeliveryRecord(row);
  });
}
