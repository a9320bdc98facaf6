import type PgModule from 'pg';
import type { Logger } from 'pino';

/** How soon a lost LISTEN connection is tried again: doubling from the first delay. */
export interface ReconnectPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

export const defaultReconnectPolicy: ReconnectPolicy = { firstDelayMs: 250, maxDelayMs: 10_000 };

/** One part of the instance that hears a channel (the print queue, webhooks, tokens). */
export interface ChannelListener {
  channel: string;
  /** Who listens, for the log lines (`print queue`, `webhooks`). */
  name: string;
  log: Logger;
  /** A notice's payload on the channel. */
  notice(payload: string): void;
  /** The channel is listened to (again): from now on every notice is heard. */
  up(): void;
  /** The connection is lost: notices are missed until `up`. */
  down(): void;
}

/** A part's hold on the connection: `close` when the part stops listening. */
export interface ListenSubscription {
  /** Whether this part's channel is listened to now, so that its notices arrive. */
  readonly isListening: boolean;
  close(): Promise<void>;
}

/**
 * The one connection of this instance, outside the pool, in LISTEN on the channels of every
 * part that hears other processes' changes (the print queue's jobs, the webhooks' endpoints,
 * the tokens), each notice handed to the parts of its channel. One connection, not one a
 * part: an instance uses its pool's connections and this one (docs/deploy.md).
 *
 * Opened by the first part that subscribes and ended when the last one leaves (or the
 * storage closes). A lost connection (the database restarted, the backend terminated) is
 * opened again with backoff (250 ms doubling to 10 s, with jitter, so that instances which
 * lost the database together do not all return at once): every part hears `down`, then
 * `up` once its channel is listened to again, and knows notices may have been missed in
 * between. A first connection that fails is retried the same way: the server still starts.
 */
export class ListenConnection {
  readonly #connect: () => PgModule.Client;
  readonly #policy: ReconnectPolicy;
  readonly #parts = new Set<ChannelListener>();
  #client: PgModule.Client | undefined;
  /** The channels the current session listens to. */
  readonly #listened = new Set<string>();
  /** The parts told `up` in the current session. */
  readonly #up = new Set<ChannelListener>();
  /** Ends the current session as lost (a failed LISTEN). */
  #lose: ((error: unknown) => void) | undefined;
  /** Serialises the LISTEN commands of one session. */
  #listening: Promise<void> = Promise.resolve();
  #opening: Promise<void> | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  #failures = 0;
  /** How many times a LISTEN session was established (tests and logs read it). */
  sessions = 0;

  /** `connect`: a new connection outside the pool, not yet connected. */
  constructor(connect: () => PgModule.Client, policy: ReconnectPolicy = defaultReconnectPolicy) {
    this.#connect = connect;
    this.#policy = policy;
  }

  /** Whether the connection is up and has sent the LISTENs of the parts it had then. */
  get isListening(): boolean {
    return this.#client !== undefined && this.#opening === undefined;
  }

  /** The backend process id of the LISTEN connection (tests terminate it). */
  get backendPid(): number | undefined {
    return (this.#client as { processID?: number } | undefined)?.processID;
  }

  /**
   * Starts hearing `part`'s channel: opens the connection if it is the first part, and
   * waits for a first attempt (a failed one is retried in the background).
   */
  async subscribe(part: ChannelListener): Promise<ListenSubscription> {
    this.#parts.add(part);
    const up = this.#up;
    const subscription: ListenSubscription = {
      get isListening() {
        return up.has(part);
      },
      close: () => this.#unsubscribe(part),
    };
    if (this.#closed) return subscription;
    if (this.#client === undefined && this.#opening === undefined && this.#retry === undefined) {
      this.#startOpening();
    }
    if (this.#opening) await this.#opening;
    // A session opened by another part may have sent its LISTENs before this part came.
    await this.#listenToAll();
    return subscription;
  }

  /** Ends the connection for good (the storage closes). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#end();
  }

  async #unsubscribe(part: ChannelListener): Promise<void> {
    if (!this.#parts.delete(part)) return;
    this.#up.delete(part);
    if (this.#parts.size === 0) await this.#end();
  }

  async #end(): Promise<void> {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    // An attempt under way finds its client ended and gives up; a new part opens anew.
    this.#opening = undefined;
    this.#listened.clear();
    this.#up.clear();
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The log of the first part, for what concerns the connection as a whole. */
  #log(): Logger | undefined {
    return this.#parts.values().next().value?.log;
  }

  /** The names of the parts listening, for the log lines. */
  #names(): string {
    return [...new Set([...this.#parts].map((part) => part.name))].join(', ');
  }

  /** Opens a session; `#opening` while it connects and sends its first LISTENs. */
  #startOpening(): Promise<void> {
    const opening = this.#open().finally(() => {
      if (this.#opening === opening) this.#opening = undefined;
    });
    this.#opening = opening;
    return opening;
  }

  async #open(): Promise<void> {
    const client = this.#connect();
    this.#client = client;
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      const wasListening = this.#client === client && this.#listened.size > 0;
      if (this.#client === client) {
        this.#client = undefined;
        this.#listened.clear();
        this.#up.clear();
      }
      for (const part of this.#parts) part.down();
      client.end().catch(() => undefined);
      if (this.#closed || this.#parts.size === 0) return;
      this.#log()?.warn(
        { err: error, was_listening: wasListening },
        `${this.#names()}: LISTEN connection to PostgreSQL lost; reconnecting`,
      );
      this.#scheduleReconnect();
    };
    this.#lose = onLost;
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.payload === undefined) return;
      for (const part of this.#parts) {
        if (part.channel === message.channel) part.notice(message.payload);
      }
    });
    try {
      await client.connect();
    } catch (error) {
      onLost(error);
      return;
    }
    if (lost || this.#client !== client) return;
    this.#failures = 0;
    this.sessions += 1;
    if (this.sessions > 1)
      this.#log()?.info(`${this.#names()}: LISTEN connection to PostgreSQL restored`);
    await this.#listenToAll();
  }

  /**
   * Sends `LISTEN` for every part's channel the session does not listen to yet, one at a
   * time, and tells each part of such a channel it is up. A failure is a lost connection.
   */
  #listenToAll(): Promise<void> {
    this.#listening = this.#listening.then(async () => {
      const client = this.#client;
      if (!client) return;
      for (const part of [...this.#parts]) {
        if (this.#client !== client) return;
        if (!this.#listened.has(part.channel)) {
          try {
            // A channel is an identifier of our own (`shopdesk_jobs`), never a client's.
            await client.query(`LISTEN ${part.channel}`);
          } catch (error) {
            this.#lose?.(error);
            return;
          }
          if (this.#client !== client) return;
          this.#listened.add(part.channel);
        }
        if (this.#parts.has(part) && !this.#up.has(part)) {
          this.#up.add(part);
          part.up();
        }
      }
    });
    return this.#listening;
  }

  #scheduleReconnect(): void {
    const base = Math.min(
      this.#policy.maxDelayMs,
      this.#policy.firstDelayMs * 2 ** Math.min(this.#failures, 20),
    );
    this.#failures += 1;
    const delay = base * (0.5 + Math.random() / 2);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed || this.#parts.size === 0) return;
      this.#startOpening().catch((error: unknown) =>
        this.#log()?.error({ err: error }, 'LISTEN reconnect failed'),
      );
    }, delay);
    this.#retry.unref();
  }
}
