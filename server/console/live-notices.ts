import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { PrintingService } from '../printing/index.ts';
import type { Storage } from '../storage/database.ts';
import type { ListenSubscription } from '../storage/listen-connection.ts';

/** The PostgreSQL channel on which every instance hears that a company's jobs changed. */
export const consoleChannel = 'shopdesk_console';

/**
 * The shortest time between two notices of one company from one instance. The first change
 * after a quiet spell goes out at once; the changes of a burst (a sweep, a busy till) go out
 * as one notice at the end of the gap: at most 20 NOTIFYs a second per company, whatever the
 * queue's throughput (a NOTIFY takes PostgreSQL's notify-queue lock at its commit).
 */
const minGapMs = 50;

interface Pending {
  /** When the last notice of the company was sent. */
  sentAt: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * What wakes the console's streams of every instance at once on any instance's job change
 * (PostgreSQL): each instance NOTIFYs `shopdesk_console` with the company's id after each of
 * its own committed job changes, and hears the others' on its one LISTEN connection
 * (`storage.listener`). The print queue's own channel (`shopdesk_jobs`) is not enough: it is
 * sent only for queued jobs that no agent of the queuing instance takes, never for a claim,
 * a print or a failure.
 *
 * The payload is `instance:company`: an instance skips its own notices (its streams were
 * woken by the change itself), and a notice wakes the streams of that company only. On
 * SQLite (one server process) it does nothing.
 */
export class LiveNotices {
  readonly #storage: Storage;
  readonly #printing: PrintingService;
  readonly #log: Logger;
  readonly #wake: (companyId: number) => void;
  readonly #wakeAll: () => void;
  /** This instance's mark in the payload, to skip its own notices. */
  readonly #instance = randomUUID().slice(0, 8);
  readonly #pending = new Map<number, Pending>();
  #subscription: ListenSubscription | undefined;
  #stopJobs: (() => void) | undefined;
  #closed = false;

  constructor(deps: {
    storage: Storage;
    printing: PrintingService;
    log: Logger;
    /** Another instance changed a job of the company. */
    wake: (companyId: number) => void;
    /** The channel is listened to again: notices may have been missed meanwhile. */
    wakeAll: () => void;
  }) {
    this.#storage = deps.storage;
    this.#printing = deps.printing;
    this.#log = deps.log;
    this.#wake = deps.wake;
    this.#wakeAll = deps.wakeAll;
  }

  /** Listens and announces (PostgreSQL); a first LISTEN that fails is retried in the background. */
  async start(): Promise<void> {
    const listener = this.#storage.listener;
    if (!listener) return;
    this.#stopJobs = this.#printing.onJobChange((companyId) => this.#announce(companyId));
    this.#subscription = await listener.subscribe({
      channel: consoleChannel,
      name: 'console live events',
      log: this.#log,
      notice: (payload) => this.#heard(payload),
      up: () => this.#wakeAll(),
      down: () => undefined,
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#stopJobs?.();
    for (const pending of this.#pending.values()) clearTimeout(pending.timer);
    this.#pending.clear();
    await this.#subscription?.close();
  }

  #heard(payload: string): void {
    const match = /^([\w-]+):(\d+)$/.exec(payload);
    if (!match || match[1] === this.#instance) return;
    this.#wake(Number(match[2]));
  }

  /** At once after a quiet spell, else once at the end of the gap. */
  #announce(companyId: number): void {
    const pending = this.#pending.get(companyId) ?? { sentAt: 0, timer: undefined };
    this.#pending.set(companyId, pending);
    if (pending.timer) return;
    const wait = pending.sentAt + minGapMs - Date.now();
    if (wait <= 0) {
      this.#send(companyId, pending);
      return;
    }
    pending.timer = setTimeout(() => {
      pending.timer = undefined;
      this.#send(companyId, pending);
    }, wait);
    pending.timer.unref();
  }

  #send(companyId: number, pending: Pending): void {
    if (this.#closed) return;
    const sentAt = Date.now();
    pending.sentAt = sentAt;
    // Once the gap is over with no notice since, the company's entry goes: a shop that
    // printed once keeps nothing here.
    setTimeout(() => {
      if (!pending.timer && pending.sentAt === sentAt && this.#pending.get(companyId) === pending) {
        this.#pending.delete(companyId);
      }
    }, minGapMs).unref();
    // Its channel written in the text (not a parameter), so that it reads apart from the print
    // queue's own NOTIFYs wherever statements are counted.
    sql`select pg_notify(${sql.lit(consoleChannel)}, ${`${this.#instance}:${companyId}`})`
      .execute(this.#storage.db)
      .then(() => undefined)
      .catch((error: unknown) =>
        // The other instances' poll still carries the change, within its interval.
        this.#log.debug({ err: error }, 'console events: a change could not be announced'),
      );
  }
}
