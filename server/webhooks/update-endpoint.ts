import type { EndpointRecord, UpdateEndpointBody } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { acceptableUrl, type EndpointDeps, storedEvents } from './endpoint-input.ts';
import { readEndpointRow } from './read-endpoint.ts';
import { failPendingDeliveries } from './record-attempts.ts';
import { type EndpointRow, toEndpointRecord } from './records.ts';

export const disabledByOwner = 'Disabled by its owner.';

/**
 * PATCH: what is sent changes. `enabled: false` disables it (its pending deliveries fail
 * without an attempt); `enabled: true` enables it again and forgets why it was disabled and
 * its run of failures, so the server's 5-day count starts anew.
 */
export async function updateEndpoint(
  deps: EndpointDeps,
  db: Db,
  companyId: number,
  id: number,
  input: UpdateEndpointBody,
  now: Date,
): Promise<EndpointRecord> {
  const url = input.url === undefined ? undefined : await acceptableUrl(deps, input.url);
  const stamp = isoNow(now);
  const { storage, outbox } = deps;
  return storage.transaction(db, async (trx) => {
    const existing = await readEndpointRow(trx, companyId, id, { lock: true });
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
      await failPendingDeliveries(outbox, trx, companyId, id);
    } else {
      await outbox.endpointsChanged(trx, companyId);
    }
    return toEndpointRecord(row);
  });
}
