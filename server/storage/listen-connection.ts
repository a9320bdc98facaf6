import type PgModule from 'pg';
import type { Logger } from 'pino';

/** How soon a lost LISTEN connection is tried again: doubling from the first delay. */
export interface ReconnectPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

export const defaultReconnectPolicy: ReconnectPolicy = { firstDelayMs: 250, maxDelayMs: 10_000 };

export interface ListenOptions {
  /** A new connection outside the pool, not yet connected (`storage.dedicatedClient`). */
  connect: () => PgModule.Client;
  channel: string;
  /** Who listens, for the log lines (`print queue`, `webhooks`). */
  name: string;
  log: Logger;
  /** A notice's payload on the channel. */
  notice(payload: string): void;
  /** The connection listens (again): from now on every notice is heard. */
  up(): void;
  /** The connection is lost: notices are missed until `up`. */
  down(): void;
  policy?: ReconnectPolicy;
}

/**
 * One connection of this instance, outside the pool, in `LISTEN channel`. A lost connection
 * (the database restarted, the backend terminated) is opened again with backoff (250 ms
 * doubling to 10 s, with jitter, so that instances which lost the database together do not
 * all return at once); `down` and `up` tell the listener when notices may have been missed.
 * A first connection that fails is retried the same way: the server still starts.
 */
export class ListenConnection {
  private readonly options: ListenOptions;
  private readonly policy: ReconnectPolicy;
  private client: PgModule.Client | undefined;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  /** How many times a LISTEN session was established (tests and logs read it). */
  sessions = 0;

  constructor(options: ListenOptions) {
    this.options = options;
    this.policy = options.policy ?? defaultReconnectPolicy;
  }

  /** Whether the LISTEN session is up, so that notices arrive. */
  get isListening(): boolean {
    return this.listening;
  }

  /** The backend process id of the LISTEN connection (tests terminate it). */
  get backendPid(): number | undefined {
    return (this.client as { processID?: number } | undefined)?.processID;
  }

  async start(): Promise<void> {
    await this.open();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    this.listening = false;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const { connect, channel, name, log } = this.options;
    const client = connect();
    this.client = client;
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      const wasListening = this.listening && this.client === client;
      if (this.client === client) {
        this.client = undefined;
        this.listening = false;
      }
      this.options.down();
      client.end().catch(() => undefined);
      if (this.closed) return;
      log.warn(
        { err: error, was_listening: wasListening },
        `${name}: LISTEN connection to PostgreSQL lost; reconnecting`,
      );
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload !== undefined) {
        this.options.notice(message.payload);
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${channel}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (lost) return;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.listening = true;
    this.failures = 0;
    this.sessions += 1;
    if (this.sessions > 1) log.info(`${name}: LISTEN connection to PostgreSQL restored`);
    this.options.up();
  }

  private scheduleReconnect(): void {
    const base = Math.min(
      this.policy.maxDelayMs,
      this.policy.firstDelayMs * 2 ** Math.min(this.failures, 20),
    );
    this.failures += 1;
    const delay = base * (0.5 + Math.random() / 2);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.open().catch((error) =>
        this.options.log.error({ err: error }, `${this.options.name}: LISTEN reconnect failed`),
      );
    }, delay);
    this.retry.unref();
  }
}
