import type PgModule from 'pg';
import type { Logger } from 'pino';
import { InProcessJobNotifier, type JobNotifier, jobsChannel, parseNotice } from './notifier.ts';

/** How soon a lost LISTEN connection is tried again: doubling from the first delay. */
export interface ReconnectPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
}

export const defaultReconnectPolicy: ReconnectPolicy = { firstDelayMs: 250, maxDelayMs: 10_000 };

/**
 * The notifier of several server instances on one PostgreSQL. The transaction that queues
 * a job runs `pg_notify('shopdesk_jobs', ...)` (`queueInTransaction`, print-queue.ts), so
 * the notice is delivered only once the job is committed, and to every instance, whoever
 * queued it (this instance, another one, the CLI). Each instance keeps one connection of its own, outside
 * the pool, in `LISTEN shopdesk_jobs`, and hands each notice to its local waiters exactly as
 * the in-process notifier does: one waiter per notice, passed on when unused. Several
 * instances each wake one waiter for the same job; `FOR UPDATE SKIP LOCKED` and the claim's
 * `status = 'queued'` guard give it to one of them, and the others go back to sleep.
 *
 * A lost connection is opened again with backoff (250 ms doubling to 10 s, with jitter);
 * notices sent meanwhile are lost, so once it listens again every local waiter tries a claim
 * (`wakeAll`). Until then a waiter is woken only by jobs queued through this instance, or
 * by the end of its wait.
 */
export class PostgresJobNotifier implements JobNotifier {
  private readonly local = new InProcessJobNotifier();
  private readonly connect: () => PgModule.Client;
  private readonly log: Logger;
  private readonly policy: ReconnectPolicy;
  private client: PgModule.Client | undefined;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  /** How many times a LISTEN session was established (tests and logs read it). */
  sessions = 0;

  constructor(
    connect: () => PgModule.Client,
    log: Logger,
    policy: ReconnectPolicy = defaultReconnectPolicy,
  ) {
    this.connect = connect;
    this.log = log;
    this.policy = policy;
  }

  /** Whether the LISTEN connection is up, so that notices arrive. */
  get isListening(): boolean {
    return this.listening;
  }

  /** The backend process id of the LISTEN connection (tests terminate it). */
  get backendPid(): number | undefined {
    return (this.client as { processID?: number } | undefined)?.processID;
  }

  /**
   * Opens the LISTEN connection. A first attempt that fails is logged and retried in the
   * background: the server still serves, its waiters wake at the end of their wait.
   */
  async start(): Promise<void> {
    await this.open();
  }

  jobQueued(companyId: number, route: string): void {
    // The transaction announced it: the notice comes back through LISTEN, here as on every
    // other instance. Without a LISTEN connection it cannot, so this instance's waiters
    // are woken directly (after the commit, since the caller calls once it returned).
    if (!this.listening) this.local.jobQueued(companyId, route);
  }

  passOn(companyId: number, route: string): void {
    this.local.passOn(companyId, route);
  }

  subscribe(
    companyId: number,
    routes: readonly string[],
    listener: (route: string) => void,
  ): () => void {
    return this.local.subscribe(companyId, routes, listener);
  }

  wakeAll(): void {
    this.local.wakeAll();
  }

  hasWaiters(): boolean {
    return this.local.hasWaiters();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.retry = undefined;
    this.listening = false;
    await this.local.close();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const client = this.connect();
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
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.log.warn(
        { err: error, was_listening: wasListening },
        'print queue: LISTEN connection to PostgreSQL lost; reconnecting',
      );
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel !== jobsChannel || message.payload === undefined) return;
      const notice = parseNotice(message.payload);
      if (notice) this.local.jobQueued(notice.companyId, notice.route);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${jobsChannel}`);
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
    if (this.sessions > 1) this.log.info('print queue: LISTEN connection to PostgreSQL restored');
    // Notices sent while nobody listened are lost: every waiter tries a claim once.
    this.local.wakeAll();
  }

  private scheduleReconnect(): void {
    const base = Math.min(
      this.policy.maxDelayMs,
      this.policy.firstDelayMs * 2 ** Math.min(this.failures, 20),
    );
    this.failures += 1;
    // Jitter: instances that lost the database together do not all return at once.
    const delay = base * (0.5 + Math.random() / 2);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.open().catch((error) =>
        this.log.error({ err: error }, 'print queue: LISTEN reconnect failed'),
      );
    }, delay);
    this.retry.unref();
  }
}
