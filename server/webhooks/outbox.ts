import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { DeliveredEventType, EventBody, WebhookEventType } from '../../shared/webhooks.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { notify } from '../storage/notify.ts';
import { prepared } from '../storage/prepared.ts';
import { Subscriptions, subscriptionsChannel } from './subscriptions.ts';

/** The record an event carries, made only when some endpoint takes the event. */
export type EventData = () => unknown;

export interface NewEvent {
  companyId: number;
  type: WebhookEventType;
  /** When the change happened (ISO 8601, as the API writes it). */
  at: string;
  data: EventData;
}

/** A delivery row to write: one event for one endpoint. */
export interface OutboxRow {
  companyId: number;
  endpointId: number;
  eventId: string;
  type: DeliveredEventType;
  body: string;
  at: string;
}

/** A pending delivery, due at once. */
const deliveryValues = (p: OutboxRow) => ({
  company_id: p.companyId,
  endpoint_id: p.endpointId,
  event_id: p.eventId,
  type: p.type,
  body: p.body,
  status: 'pending' as const,
  attempts: 0,
  queued_attempts: 0,
  next_attempt_at: p.at,
  created_at: p.at,
});

/** One row, compiled once: the print queue writes it on every create, claim and confirm. */
const insertDelivery = prepared<OutboxRow, never>((db, p) =>
  db.insertInto('webhook_deliveries').values(deliveryValues(p)),
);

/**
 * Delivery rows made elsewhere (the print queue's store, in its change's unit of work), in
 * one statement. Awaited on PostgreSQL; on SQLite it runs straight on the connection.
 */
export async function insertOutboxRows(db: Db, rows: readonly OutboxRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 200) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + 200).map(deliveryValues))
      .execute();
  }
}

/** `insertOutboxRows` synchronously, in SQLite's group commit (`groupedSqliteTransaction`). */
export function insertOutboxRowsNow(db: Db, rows: readonly OutboxRow[]): void {
  for (const row of rows) insertDelivery.sync(db, row);
}

/** One event's rows, one per endpoint: one `webhook-id` and one body for all of them. */
export function rowsOfEvent(
  event: Omit<NewEvent, 'data'>,
  data: unknown,
  endpoints: readonly number[],
): OutboxRow[] {
  const body = bodyOf(event.type, event.at, data);
  const eventId = newEventId();
  return endpoints.map((endpointId) => ({
    companyId: event.companyId,
    endpointId,
    eventId,
    type: event.type,
    body,
    at: event.at,
  }));
}

/** The `webhook-id` of a new event: the same on every attempt and for every endpoint. */
export const newEventId = () => `msg_${randomUUID().replaceAll('-', '')}`;

export function bodyOf(type: DeliveredEventType, at: string, data: unknown): string {
  const body: EventBody = { type, timestamp: at, data };
  return JSON.stringify(body);
}

/**
 * The transactional outbox: an operation that changes something an event reports writes
 * the event's delivery rows with the same `db` (its transaction), so that a committed
 * change always has its event and a rolled-back one never sends one. Once the transaction
 * commits, the dispatcher is told (`storage.afterCommit`).
 *
 * One outbox per storage, built by the wiring (`server/app.ts`, and the CLI for its own
 * changes, whose events the server's dispatcher finds on its next poll) and handed to the
 * operations that record events.
 */
export class WebhookOutbox {
  readonly subscriptions: Subscriptions;
  readonly #storage: Storage;
  readonly #listeners = new Set<() => void>();
  readonly #notify = () => {
    for (const listener of this.#listeners) listener();
  };

  constructor(storage: Storage) {
    this.#storage = storage;
    this.subscriptions = new Subscriptions(storage);
  }

  /** Keeps the subscriptions in step with other processes' changes (PostgreSQL: LISTEN). */
  start(log: Logger): Promise<void> {
    return this.subscriptions.watch.start(log);
  }

  close(): Promise<void> {
    return this.subscriptions.watch.close();
  }

  /** Called after each commit that wrote delivery rows (the dispatcher's nudge). */
  onRecorded(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records one event in `db`'s transaction. When no enabled endpoint of the company takes
   * the type and the subscriptions are cached, it returns at once: no query, no promise.
   * `event.data` builds the record as the API shows it, and runs only when some endpoint
   * takes the type.
   */
  record(db: Db, event: NewEvent): void | Promise<void> {
    const endpoints = this.subscriptions.endpointsFor(db, event.companyId, event.type);
    if (endpoints instanceof Promise) {
      return endpoints.then((ids) => (ids.length === 0 ? undefined : this.#write(db, event, ids)));
    }
    if (endpoints.length === 0) return;
    return this.#write(db, event, endpoints);
  }

  /** Records several events (a sweep, a bulk stock update), in order. */
  async recordAll(db: Db, events: readonly NewEvent[]): Promise<void> {
    const rows: OutboxRow[] = [];
    for (const event of events) {
      const endpoints = await this.subscriptions.endpointsFor(db, event.companyId, event.type);
      if (endpoints.length > 0) rows.push(...(await this.#rowsOf(event, endpoints)));
    }
    if (rows.length === 0) return;
    // Several rows a statement: a bulk of 1,000 balances is 1,000 events, and on
    // PostgreSQL each statement is a round trip.
    for (let start = 0; start < rows.length; start += 200) {
      await db
        .insertInto('webhook_deliveries')
        .values(rows.slice(start, start + 200).map(deliveryValues))
        .execute();
    }
    this.announce(db);
  }

  /** Writes rows made elsewhere (the test event), and tells the dispatcher after commit. */
  async writeRows(db: Db, rows: readonly OutboxRow[]): Promise<void> {
    for (const row of rows) await insertDelivery(db, row);
    this.announce(db);
  }

  /** Tells the dispatcher now that deliveries are due: rows written by a commit that has ended. */
  written(): void {
    this.#notify();
  }

  /** Tells the dispatcher, once `db`'s transaction commits, that deliveries are due. */
  announce(db: Db): void {
    this.#storage.afterCommit(db, this.#notify);
  }

  /**
   * Whether some enabled endpoint of the company takes `type`: for an operation that must
   * read more to make the event (the agent's printers before a heartbeat changes them), or
   * that writes without a transaction of its own when no outbox row is due (the print
   * queue's store). Answers at once, without a promise, when cached.
   */
  wants(db: Db, companyId: number, type: WebhookEventType): boolean | Promise<boolean> {
    const endpoints = this.subscriptions.endpointsFor(db, companyId, type);
    if (endpoints instanceof Promise) return endpoints.then((ids) => ids.length > 0);
    return endpoints.length > 0;
  }

  /**
   * A company's endpoints changed (created, edited, enabled, disabled, deleted) in `db`'s
   * transaction: once it commits, every process reads them again. The notice goes out with
   * the commit, to every instance (PostgreSQL's NOTIFY; none on rollback); this process's
   * own cache is dropped after the commit as well.
   */
  async endpointsChanged(db: Db, companyId: number): Promise<void> {
    await notify(db, subscriptionsChannel, String(companyId));
    this.#storage.afterCommit(db, () => this.subscriptions.changed(String(companyId)));
  }

  async #write(db: Db, event: NewEvent, endpoints: readonly number[]): Promise<void> {
    await this.writeRows(db, await this.#rowsOf(event, endpoints));
  }

  /** One row per endpoint: one `webhook-id` and one body for all of them. */
  async #rowsOf(event: NewEvent, endpoints: readonly number[]): Promise<OutboxRow[]> {
    return rowsOfEvent(event, await event.data(), endpoints);
  }
}

/** What an operation that records webhook events works with: the storage and the outbox. */
export interface OutboxDeps {
  storage: Storage;
  outbox: WebhookOutbox;
}
