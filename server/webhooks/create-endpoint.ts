import {
  type CreatedEndpointRecord,
  type CreateEndpointBody,
  maxEndpointsPerCompany,
} from '../../shared/webhooks.ts';
import { invalidField } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { acceptableUrl, type EndpointDeps, storedEvents } from './endpoint-input.ts';
import { toEndpointRecord } from './records.ts';
import { newSecret } from './signing.ts';

/**
 * A new enabled endpoint with a new secret, answered this once in the clear (stored sealed).
 * Events of changes that commit after it are sent to it.
 */
export async function createEndpoint(
  deps: EndpointDeps,
  db: Db,
  companyId: number,
  input: CreateEndpointBody,
  now: Date,
): Promise<CreatedEndpointRecord> {
  const url = await acceptableUrl(deps, input.url);
  const secret = newSecret();
  const stamp = isoNow(now);
  const { storage, outbox } = deps;
  const row = await storage.transaction(db, async (trx) => {
    const counted = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();
    if (Number(counted.n) >= maxEndpointsPerCompany) {
      throw invalidField(
        'url',
        `A company may have at most ${maxEndpointsPerCompany} webhook endpoints; delete one first.`,
      );
    }
    const inserted = await trx
      .insertInto('webhook_endpoints')
      .values({
        company_id: companyId,
        url,
        description: input.description ?? null,
        events: storedEvents(input.events),
        enabled: 1,
        disabled_at: null,
        disabled_reason: null,
        secret: deps.box.seal(secret, companyId),
        previous_secret: null,
        previous_secret_expires_at: null,
        failing_since: null,
        created_at: stamp,
        updated_at: stamp,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await outbox.endpointsChanged(trx, companyId);
    return inserted;
  });
  return { ...toEndpointRecord(row), secret };
}
