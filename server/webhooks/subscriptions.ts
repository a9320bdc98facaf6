import { sql } from 'kysely';
import type { WebhookEventType } from '../../shared/webhooks.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';

/** The PostgreSQL channel that tells every instance a company's endpoints changed. */
export const subscriptionsChannel = 'shopdesk_webhooks';

/** A company's enabled endpoints, by the event types they take. */
interface Entry {
  /** Endpoints subscribed to every type (`["*"]`). */
  all: number[];
  byType: Map<string, number[]>;
}

const none: readonly number[] = Object.freeze([]);

/** How often, at most, SQLite is asked whether another process wrote. */
const markEveryMs = 100;

const enabledEndpoints = prepared<{ companyId: number }, { id: number; events: string }>((db, p) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'events'])
    .where('company_id', '=', p.companyId)
    .where('enabled', '=', sql.lit(1))
    .orderBy('id'),
);

/**
 * Which enabled endpoints of a company take an event type, cached in memory: the print
 * queue records an event on every claim and confirm, and a company that subscribed to
 * nothing must not pay a query for it (let alone an insert).
 *
 * Kept correct across processes and instances:
 * - SQLite: the whole cache is dropped when another connection committed a write (the
 *   CLI creating an endpoint), read from SQLite's `data_version` as the token cache does
 *   (at most every 100 ms: such a change is seen within 100 ms); changes made through this
 *   process drop the company's entry once they commit.
 * - PostgreSQL: a change of endpoints runs `pg_notify('shopdesk_webhooks', company)` in
 *   its transaction, and every instance's LISTEN session (`listenForCache`, in webhooks/service.ts) drops
 *   that company's entry when it commits. Without a LISTEN session (it was lost, or this
 *   is the CLI) nothing is cached: every check reads the endpoints, until listening again.
 * In every case a change becomes visible to checks that start after it committed (on
 * other PostgreSQL instances: after the notice arrives, a few milliseconds).
 */
export class Subscriptions {
  private readonly storage: Storage;
  private readonly entries = new Map<number, Entry>();
  private mark: number;
  /** When SQLite's mark was last read (performance.now()). */
  private markReadAt = 0;
  /** PostgreSQL: whether notices reach this process, so that the cache can be trusted. */
  private listening = false;
  /** Bumped on every invalidation: a load that started before one is not kept. */
  private generation = 0;

  constructor(storage: Storage) {
    this.storage = storage;
    this.mark = storage.dialect === 'sqlite' ? storage.externalChangeMark() : 0;
  }

  /** PostgreSQL: the LISTEN session is up (from now on notices arrive) or lost. */
  setListening(listening: boolean): void {
    this.listening = listening;
    this.clear();
  }

  /** The company's endpoints changed (committed): read them again on next use. */
  changed(companyId: number): void {
    this.generation += 1;
    this.entries.delete(companyId);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /**
   * The ids of the company's enabled endpoints that take `type`, read with `db` (the
   * change's transaction) when not cached. Answers at once, without a promise, when cached.
   */
  endpointsFor(
    db: Db,
    companyId: number,
    type: WebhookEventType,
  ): readonly number[] | Promise<readonly number[]> {
    if (!this.trusted()) return this.load(db, companyId).then((entry) => idsOf(entry, type));
    const entry = this.entries.get(companyId);
    if (entry) return idsOf(entry, type);
    const generation = this.generation;
    return this.load(db, companyId).then((loaded) => {
      if (generation === this.generation) {
        if (this.entries.size >= 10_000) this.entries.clear();
        this.entries.set(companyId, loaded);
      }
      return idsOf(loaded, type);
    });
  }

  private trusted(): boolean {
    if (this.storage.dialect === 'postgres') return this.listening;
    // Reading the mark (a PRAGMA) cost more than the rest of a check together (~6 µs
    // against well under 1 µs, `bench/printing.ts`), and the print queue checks twice a job: read it at
    // most every 100 ms, so another process's change is seen within 100 ms.
    const now = performance.now();
    if (now - this.markReadAt < markEveryMs) return true;
    this.markReadAt = now;
    const mark = this.storage.externalChangeMark();
    if (mark !== this.mark) {
      this.mark = mark;
      this.clear();
    }
    return true;
  }

  private async load(db: Db, companyId: number): Promise<Entry> {
    const rows = await enabledEndpoints(db, { companyId });
    const entry: Entry = { all: [], byType: new Map() };
    for (const row of rows) {
      const events = JSON.parse(row.events) as string[];
      if (events.includes('*')) {
        entry.all.push(row.id);
        continue;
      }
      for (const type of events)
        entry.byType.set(type, [...(entry.byType.get(type) ?? []), row.id]);
    }
    return entry;
  }
}

function idsOf(entry: Entry, type: string): readonly number[] {
  const some = entry.byType.get(type);
  if (!some) return entry.all.length > 0 ? entry.all : none;
  if (entry.all.length === 0) return some;
  return [...entry.all, ...some].sort((a, b) => a - b);
}
