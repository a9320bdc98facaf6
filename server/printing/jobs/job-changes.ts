import type { WebhookEventType } from '../../../shared/webhooks.ts';
import type { Db } from '../../storage/db.ts';
import { rowsOfEvent, type WebhookOutbox } from '../../webhooks/index.ts';
import type { ChangeOutbox, JobChange, JobChangeKind, JobChanges } from '../store/queue-store.ts';
import { toJobRecord } from './records.ts';

/** The webhook event of each kind of change; a job queued again under its id sends none. */
const webhookEvents: Record<JobChangeKind, WebhookEventType | undefined> = {
  created: 'print_job.created',
  claimed: 'print_job.claimed',
  printed: 'print_job.printed',
  failed: 'print_job.failed',
  expired: 'print_job.expired',
  cancelled: 'print_job.cancelled',
  requeued: undefined,
  released: 'print_job.waiting',
  held: 'print_job.held',
};

/** Changes no endpoint takes: nothing to write. */
const nothingDue: ChangeOutbox = { due: false, rowsOf: () => [], written: () => undefined };
const nothingDueNow = Promise.resolve(nothingDue);

/**
 * Where the print queue's changes are announced, whichever store and path made them: the
 * webhook outbox in the change's commit (the event's data is the job as
 * `GET /printing/jobs/{job}` shows it, without its trail), and after the commit the agents
 * waiting in this process for a job queued on its route (`wake`).
 */
export class PrintJobChanges implements JobChanges {
  readonly #outbox: WebhookOutbox;
  readonly #wake: (companyId: number, route: string) => void;
  /** Any committed change of a company's jobs (the console's live pages listen). */
  readonly #changed: ((companyId: number) => void) | undefined;

  constructor(
    outbox: WebhookOutbox,
    wake: (companyId: number, route: string) => void,
    changed?: (companyId: number) => void,
  ) {
    this.#outbox = outbox;
    this.#wake = wake;
    this.#changed = changed;
  }

  /**
   * Not `async`: when the subscriptions are cached and nobody takes the event (the usual
   * case, on every claim and confirm) it answers with one promise made once, and reads,
   * allocates and queries nothing.
   */
  outboxFor(db: Db, companyIds: readonly number[], kind: JobChangeKind): Promise<ChangeOutbox> {
    const type = webhookEvents[kind];
    if (type === undefined) return nothingDueNow;
    const subscriptions = this.#outbox.subscriptions;
    let endpoints: Map<number, readonly number[]> | undefined;
    for (const companyId of companyIds) {
      const ids = subscriptions.endpointsFor(db, companyId, type);
      // Not cached: the read under way is awaited there (a read left behind would reject
      // unheard when the database is lost: an unhandled rejection).
      if (ids instanceof Promise)
        return this.#outboxLoaded(db, companyIds, type, { companyId, ids });
      if (ids.length === 0) continue;
      endpoints ??= new Map();
      endpoints.set(companyId, ids);
    }
    return endpoints ? Promise.resolve(this.#outboxOf(type, endpoints)) : nothingDueNow;
  }

  /** `outboxFor` once the subscriptions it needs are read. */
  async #outboxLoaded(
    db: Db,
    companyIds: readonly number[],
    type: WebhookEventType,
    pending: { companyId: number; ids: Promise<readonly number[]> },
  ): Promise<ChangeOutbox> {
    const endpoints = new Map<number, readonly number[]>();
    for (const companyId of new Set(companyIds)) {
      const ids =
        companyId === pending.companyId
          ? await pending.ids
          : await this.#outbox.subscriptions.endpointsFor(db, companyId, type);
      if (ids.length > 0) endpoints.set(companyId, ids);
    }
    return endpoints.size === 0 ? nothingDue : this.#outboxOf(type, endpoints);
  }

  /** The outbox rows of changes, for the endpoints of each company that take `type`. */
  #outboxOf(type: WebhookEventType, endpoints: Map<number, readonly number[]>): ChangeOutbox {
    return {
      due: true,
      rowsOf: (changes) =>
        changes.flatMap(({ row, waitReason }) => {
          const ids = endpoints.get(row.company_id);
          if (!ids) return [];
          const event = { companyId: row.company_id, type, at: row.updated_at };
          const job = toJobRecord(row);
          const data = waitReason ? { ...job, wait_reason: waitReason } : job;
          return rowsOfEvent(event, data, ids);
        }),
      written: () => this.#outbox.written(),
    };
  }

  committed({ kind, row }: JobChange): void {
    // A job announced held did not change: nobody need look for it again.
    if (row.status === 'queued' && kind !== 'held') this.#wake(row.company_id, row.route);
    this.#changed?.(row.company_id);
  }
}
