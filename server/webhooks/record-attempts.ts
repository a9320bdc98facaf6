import type { DeliveryStatus } from '../../shared/webhooks.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import type { DueDelivery } from './claim-deliveries.ts';
import type { AttemptOutcome } from './deliver.ts';
import type { OutboxDeps, WebhookOutbox } from './outbox.ts';
import { disableAfterMs, nextDelayMs } from './retry-schedule.ts';

/** What became of a delivery the dispatcher took. */
export type AttemptResult =
  | {
      kind: 'attempted';
      delivery: DueDelivery;
      outcome: AttemptOutcome;
      at: Date;
      /** The endpoint was in a run of failures when the attempt began. */
      endpointFailing: boolean;
    }
  /** Not attempted (the server shut down first): due again at once. */
  | { kind: 'released'; delivery: DueDelivery }
  /** Its endpoint was deleted: the row goes too. */
  | { kind: 'orphaned'; delivery: DueDelivery }
  /** Its endpoint is disabled: it fails without an attempt. */
  | { kind: 'endpoint_disabled'; delivery: DueDelivery };

export const endpointDisabledError = 'not attempted: the endpoint is disabled';

const saveAttempt = prepared<
  {
    id: number;
    status: DeliveryStatus;
    attempts: number;
    next: string | null;
    at: string;
    responseStatus: number | null;
    responseBody: string | null;
    error: string | null;
    deliveredAt: string | null;
  },
  never
>((db, p) =>
  db
    .updateTable('webhook_deliveries')
    .set({
      status: p.status,
      attempts: p.attempts,
      next_attempt_at: p.next,
      last_attempt_at: p.at,
      last_response_status: p.responseStatus,
      last_response_body: p.responseBody,
      last_error: p.error,
      delivered_at: p.deliveredAt,
    })
    .where('id', '=', p.id)
    // Disabled or deleted meanwhile: what the owner did stands.
    .where('status', '=', 'pending'),
);

/**
 * Writes what the attempts came to, in two transactions: the deliveries first, then the
 * endpoints' health (a run of failures, disabling), in endpoint id order. Apart, and each
 * in one order, so that two PostgreSQL instances recording at once never wait on each
 * other in a circle (every transaction that touches both locks the endpoint first).
 */
export async function recordAttempts(
  { storage, outbox }: OutboxDeps,
  results: readonly AttemptResult[],
  now: Date,
  random: () => number,
): Promise<void> {
  const stamp = isoNow(now);
  const health = await storage.transaction(storage.db, (trx) =>
    recordDeliveries(trx, results, stamp, random),
  );
  if (health.size === 0) return;
  await storage.transaction(storage.db, async (trx) => {
    for (const [endpointId, endpoint] of [...health].sort(([a], [b]) => a - b)) {
      await recordEndpointHealth(outbox, trx, endpointId, endpoint, now, stamp);
    }
  });
}

/** Per endpoint, what its last attempt here came to (`failed` unset: it succeeded). */
type EndpointHealth = Map<number, { companyId: number; failed: AttemptResult | undefined }>;

/**
 * Writes each delivery's result; answers the endpoints whose health the results change: a
 * success of an endpoint that was not failing changes nothing, so in the common case there
 * is no second transaction at all.
 */
async function recordDeliveries(
  trx: Db,
  results: readonly AttemptResult[],
  stamp: string,
  random: () => number,
): Promise<EndpointHealth> {
  const health: EndpointHealth = new Map();
  for (const result of results) {
    const { delivery } = result;
    if (result.kind === 'orphaned') {
      await trx.deleteFrom('webhook_deliveries').where('id', '=', delivery.id).execute();
      continue;
    }
    if (result.kind === 'released') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ next_attempt_at: stamp })
        .where('id', '=', delivery.id)
        .where('status', '=', 'pending')
        .execute();
      continue;
    }
    if (result.kind === 'endpoint_disabled') {
      await trx
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, last_error: endpointDisabledError })
        .where('id', '=', delivery.id)
        .where('status', '=', 'pending')
        .execute();
      continue;
    }
    await saveAttemptResult(trx, result, random);
    const { outcome } = result;
    if (outcome.delivered && !result.endpointFailing && !health.has(delivery.endpoint_id)) {
      continue;
    }
    health.set(delivery.endpoint_id, {
      companyId: delivery.company_id,
      failed: outcome.delivered ? undefined : result,
    });
  }
  return health;
}

/** An attempt's delivery: delivered, due again after its retry delay, or failed for good. */
async function saveAttemptResult(
  trx: Db,
  result: Extract<AttemptResult, { kind: 'attempted' }>,
  random: () => number,
): Promise<void> {
  const { delivery, outcome } = result;
  const attempts = delivery.attempts + 1;
  const at = isoNow(result.at);
  const delay = outcome.delivered
    ? undefined
    : nextDelayMs(attempts - delivery.queued_attempts, random);
  const status: DeliveryStatus = outcome.delivered
    ? 'delivered'
    : delay === undefined
      ? 'failed'
      : 'pending';
  await saveAttempt(trx, {
    id: delivery.id,
    status,
    attempts,
    next: delay === undefined ? null : isoNow(new Date(result.at.getTime() + delay)),
    at,
    responseStatus: outcome.status,
    responseBody: outcome.body,
    error: outcome.error,
    deliveredAt: outcome.delivered ? at : null,
  });
}

/**
 * One endpoint's health: a success ends its run of failures; a failure starts one, and an
 * endpoint whose every attempt failed for `disableAfterMs` is disabled, its pending
 * deliveries failed.
 */
async function recordEndpointHealth(
  outbox: WebhookOutbox,
  trx: Db,
  endpointId: number,
  { companyId, failed }: { companyId: number; failed: AttemptResult | undefined },
  now: Date,
  stamp: string,
): Promise<void> {
  if (!failed) {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', endpointId)
      .where('failing_since', 'is not', null)
      .execute();
    return;
  }
  const since = isoNow(failed.kind === 'attempted' ? failed.at : now);
  await trx
    .updateTable('webhook_endpoints')
    .set({ failing_since: since })
    .where('id', '=', endpointId)
    .where('failing_since', 'is', null)
    .execute();
  const row = await trx
    .selectFrom('webhook_endpoints')
    .select(['enabled', 'failing_since'])
    .where('id', '=', endpointId)
    .executeTakeFirst();
  const cutoff = isoNow(new Date(now.getTime() - disableAfterMs));
  if (!row?.enabled || row.failing_since === null || row.failing_since > cutoff) return;
  const error = failed.kind === 'attempted' ? failed.outcome.error : null;
  const disabled = await trx
    .updateTable('webhook_endpoints')
    .set({
      enabled: 0,
      disabled_at: stamp,
      disabled_reason: `Disabled by the server: every attempt failed for 5 days, since ${row.failing_since}. Last error: ${error ?? 'unknown'}`,
      updated_at: stamp,
    })
    .where('id', '=', endpointId)
    .where('enabled', '=', 1)
    .executeTakeFirst();
  if (Number(disabled.numUpdatedRows) > 0) {
    await failPendingDeliveries(outbox, trx, companyId, endpointId);
  }
}

/**
 * An endpoint was disabled (by its owner or the server): its pending deliveries fail
 * without an attempt (a retry of one sends it once the endpoint is enabled again), and
 * the subscriptions of its company are read again once this commits.
 */
export async function failPendingDeliveries(
  outbox: WebhookOutbox,
  db: Db,
  companyId: number,
  endpointId: number,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, last_error: endpointDisabledError })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
  await outbox.endpointsChanged(db, companyId);
}
