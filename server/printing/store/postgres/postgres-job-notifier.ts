import type PgModule from 'pg';
import type { Logger } from 'pino';
import { ListenConnection } from '../../../storage/listen-connection.ts';
import { InProcessJobNotifier, type JobNotifier } from '../../long-poll/job-notifier.ts';
import { jobsChannel, parseNotice } from '../queue-notices.ts';

/**
 * The notifier of several server instances on one PostgreSQL. The transaction that queues
 * a job runs `pg_notify('shopdesk_jobs', ...)` (the stores' `finishChange`, and the
 * one-statement create), so
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
  private readonly connection: ListenConnection;

  constructor(connect: () => PgModule.Client, log: Logger) {
    this.connection = new ListenConnection({
      connect,
      channel: jobsChannel,
      name: 'print queue',
      log,
      notice: (payload) => {
        const notice = parseNotice(payload);
        if (notice) this.local.jobQueued(notice.companyId, notice.route);
      },
      // Notices sent while nobody listened are lost: every waiter tries a claim once.
      up: () => this.local.wakeAll(),
      down: () => undefined,
    });
  }

  /** Whether the LISTEN connection is up, so that notices arrive. */
  get isListening(): boolean {
    return this.connection.isListening;
  }

  /** How many times a LISTEN session was established (tests read it). */
  get sessions(): number {
    return this.connection.sessions;
  }

  /** The backend process id of the LISTEN connection (tests terminate it). */
  get backendPid(): number | undefined {
    return this.connection.backendPid;
  }

  /**
   * Opens the LISTEN connection. A first attempt that fails is logged and retried in the
   * background: the server still serves, its waiters wake at the end of their wait.
   */
  async start(): Promise<void> {
    await this.connection.start();
  }

  jobQueued(companyId: number, route: string): void {
    // The transaction announced it: the notice comes back through LISTEN, here as on every
    // other instance. Without a LISTEN connection it cannot, so this instance's waiters
    // are woken directly (after the commit, since the caller calls once it returned).
    if (!this.connection.isListening) this.local.jobQueued(companyId, route);
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
    await this.connection.close();
    await this.local.close();
  }
}
