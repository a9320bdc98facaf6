import { sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import { lockRows } from '../storage/locks.ts';
import type { WebhookTables } from '../storage/tables/webhooks.ts';
import { isoNow } from '../time.ts';

type DeliveryRow = WebhookTables['webhook_deliveries'];

/** A delivery taken for an attempt, with what the attempt needs. */
export interface DueDelivery {
  id: number;
  company_id: number;
  endpoint_id: number;
  event_id: string;
  body: string;
  attempts: number;
  queued_attempts: number;
}

/** How long an attempt holds its delivery: longer than the attempt's timeout. */
export const leaseMs = 30_000;

const columns = [
  'id',
  'company_id',
  'endpoint_id',
  'event_id',
  'body',
  'attempts',
  'queued_attempts',
] as const satisfies readonly (keyof DeliveryRow)[];

/**
 * Takes up to `limit` due deliveries for attempts: their `next_attempt_at` moves to the end
 * of a lease, so no other pick (of this instance or another) takes them meanwhile, and an
 * instance that dies mid-attempt leaves them to be tried again when the lease ends. One
 * statement: on PostgreSQL the subquery's `FOR UPDATE SKIP LOCKED` lets several instances
 * pick at once, each passing over the rows another is taking; the outer `status` and due
 * time re-check what the subquery saw.
 */
export async function claimDueDeliveries(
  storage: Storage,
  now: Date,
  limit: number,
): Promise<DueDelivery[]> {
  const stamp = isoNow(now);
  const lease = isoNow(new Date(now.getTime() + leaseMs));
  const db = storage.db;
  // A read first: the timer looks every second, and on SQLite even an UPDATE that matches
  // nothing takes the write lock (and waits for the CLI's, if it holds it); on PostgreSQL
  // the read costs one round trip a batch.
  const any = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', stamp)
    .limit(1)
    .executeTakeFirst();
  if (!any) return [];
  const due = db
    .selectFrom('webhook_deliveries')
    .select('id')
    // Literal status: SQLite uses the partial index only for a literal term.
    .where('status', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', stamp)
    .orderBy('next_attempt_at')
    .limit(limit);
  return db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: lease })
    .where('id', 'in', lockRows(db, due, 'update', { skipLocked: true }))
    .where('status', '=', sql.lit('pending'))
    .where('next_attempt_at', '<=', stamp)
    .returning(columns)
    .execute();
}
