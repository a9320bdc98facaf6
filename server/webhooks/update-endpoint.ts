import type { EndpointRecord, UpdateEndpointBody } from '../../shared/webhooks.ts';
import { isoNow } from '../time.ts';
import {
  acceptableUrl,
  type EndpointDeps,
  type EndpointRow,
  getEndpointRow,
  storedEvents,
  toEndpointRecord,
} from './endpoints.ts';
import { endpointsChanged } from './outbox.ts';
import { failPendingDeliveries } from './record-attempts.ts';

export const disabledByOwner = 'Disabled by its owner.';

/**
 * PATCH: what is sent changes. `enabled: false` disables it (its pending deliveries fail
 * without an attempt); `enabled: true` enables it again and forgets why it was disabled and
 * its run of failures, so the server's 5-day count starts anew.
 */
export async function updateEndpoint(
  deps: EndpointDeps,
  companyId: number,
  id: number,
  input: UpdateEndpointBody,
  now: Date,
): Promise<EndpointRecord> {
  const url = input.url === undefined ? undefined : await acceptableUrl(deps, input.url);
  const stamp = isoNow(now);
  const { storage } = deps;
  return storage.transaction(async (trx) => {
    const existing = await getEndpointRow(trx, companyId, id, {
      lock: storage.dialect === 'postgres',
    });
    const columns: Partial<EndpointRow> = { updated_at: stamp };
    if (url !== undefined) columns.url = url;
    if (input.events !== undefined) columns.events = storedEvents(input.events);
    if (input.description !== undefined) columns.description = input.description;
    const wasEnabled = Boolean(existing.enabled);
    if (input.enabled === false && wasEnabled) {
      Object.assign(columns, { enabled: 0, disabled_at: stamp, disabled_reason: disabledByOwner });
    }
    if (input.enabled === true && !wasEnabled) {
      Object.assign(columns, {
        enabled: 1,
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
      });
    }
    const row = await trx
      .updateTable('webhook_endpoints')
      .set(columns)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.enabled === false && wasEnabled) {
      await failPendingDeliveries(storage, trx, companyId, id);
    } else {
      await endpointsChanged(storage, trx, companyId);
    }
    return toEndpointRecord(row);
  });
}
