import type { Logger } from 'pino';
import type { ListenConnection, ListenSubscription } from './listen-connection.ts';

/** A cache of rows that other processes may change (tokens, webhook subscriptions). */
export interface WatchedCache {
  /**
   * What the cache holds may have changed: `payload` names the part (a notice's payload),
   * or, left out, everything may have.
   */
  changed(payload?: string): void;
}

/**
 * Tells a cache when it may answer from memory and when it must drop what it holds, whoever
 * changed the rows, in each database's way (`storage.watchChanges`):
 * - SQLite: another process's commit (the CLI) moves `PRAGMA data_version`; the mark is
 *   read at most once per turn of the event loop (or per `markEveryMs`), and when it moved
 *   the whole cache is dropped. This process's own changes drop what they touch after
 *   their commit. Always trusted.
 * - PostgreSQL: the writers send a NOTIFY on `channel` with their commit (a trigger, or
 *   `notify`), and the instance's LISTEN connection hears it a few milliseconds later.
 *   Trusted only while that connection listens to the channel: without it (lost, not
 *   started, the CLI) nothing may be cached, and every check reads the rows.
 */
export interface ChangeWatch {
  /** Whether the cache may answer from memory now (SQLite: drops it first when another process wrote). */
  trusted(): boolean;
  /** PostgreSQL: the channel is listened to (from now on every change is heard) or lost. */
  setListening(listening: boolean): void;
  /** PostgreSQL: the instance's LISTEN connection (tests cut it); undefined on SQLite. */
  readonly listener: ListenConnection | undefined;
  /** Starts hearing changes (PostgreSQL: its channel on the instance's LISTEN connection). */
  start(log: Logger): Promise<void>;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** PostgreSQL: the channel the writers notify on. */
  channel: string;
  /** Who watches, for the log lines (`tokens`, `webhooks`). */
  name: string;
  /** SQLite: read the mark at most this often; once per turn of the event loop when left out. */
  markEveryMs?: number;
}

export class SqliteChangeWatch implements ChangeWatch {
  readonly listener = undefined;
  readonly #cache: WatchedCache;
  readonly #markNow: () => number;
  readonly #everyMs: number | undefined;
  #mark: number;
  #readAt = 0;
  #readThisTurn = false;

  constructor(cache: WatchedCache, markNow: () => number, everyMs: number | undefined) {
    this.#cache = cache;
    this.#markNow = markNow;
    this.#everyMs = everyMs;
    this.#mark = markNow();
  }

  trusted(): boolean {
    // Reading the mark (a PRAGMA) cost more than the rest of a cache check together: at most
    // once per turn (the requests read in one turn arrived together) or per `markEveryMs`.
    if (this.#everyMs === undefined) {
      if (this.#readThisTurn) return true;
      this.#readThisTurn = true;
      setImmediate(() => {
        this.#readThisTurn = false;
      });
    } else {
      const now = performance.now();
      if (now - this.#readAt < this.#everyMs) return true;
      this.#readAt = now;
    }
    const mark = this.#markNow();
    if (mark !== this.#mark) {
      this.#mark = mark;
      this.#cache.changed();
    }
    return true;
  }

  setListening(): void {}

  async start(): Promise<void> {}

  async close(): Promise<void> {}
}

export class PostgresChangeWatch implements ChangeWatch {
  readonly #cache: WatchedCache;
  readonly listener: ListenConnection;
  readonly #options: WatchOptions;
  #listening = false;
  #subscription: ListenSubscription | undefined;

  constructor(cache: WatchedCache, listener: ListenConnection, options: WatchOptions) {
    this.#cache = cache;
    this.listener = listener;
    this.#options = options;
  }

  trusted(): boolean {
    return this.#listening;
  }

  setListening(listening: boolean): void {
    this.#listening = listening;
    this.#cache.changed();
  }

  async start(log: Logger): Promise<void> {
    this.#subscription = await this.listener.subscribe({
      channel: this.#options.channel,
      name: this.#options.name,
      log,
      notice: (payload) => this.#cache.changed(payload),
      up: () => this.setListening(true),
      down: () => this.setListening(false),
    });
  }

  async close(): Promise<void> {
    const subscription = this.#subscription;
    this.#subscription = undefined;
    await subscription?.close();
    // Nothing keeps the cache in step any more: every check reads the rows again.
    if (subscription) this.setListening(false);
  }
}
