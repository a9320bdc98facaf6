import type { Logger } from 'pino';
import type { ListenConnection, ListenSubscription } from '../../../storage/listen-connection.ts';
import { InProcessJobNotifier, type JobNotifier } from '../../long-poll/job-notifier.ts';
import { jobsChannel, noticeOf, parseNotice, type WaitersHere } from '../queue-notices.ts';

/**
 * The notifier of several server instances on one PostgreSQL. Each instance listens to
 * `shopdesk_jobs` on its one LISTEN connection (`storage.listener`), and hands each notice
 * to its local waiters exactly as the in-process notifier does: one waiter per notice,
 * passed on when unused.
 *
 * A job is announced where an agent will take it, and only there (`WaitersHere`):
 * - when an agent waits in the queuing instance for a job of that route, the store sends no
 *   NOTIFY; once the job has committed, `queuedHere` wakes that agent directly. Every
 *   instance would otherwise wake one agent for the same job, and all but one would claim
 *   nothing: with 50 agents over three instances and a job every 5 ms those lost races
 *   (each a read of the token, of the agent and a claim) made the p99 of POST → claim
 *   138 ms (bench/printing-postgres.ts --steady);
 * - otherwise the transaction that queues it runs `pg_notify('shopdesk_jobs', ...)`
 *   (`announceQueued` in the store's units of work, and the one-statement create), so the notice is delivered only
 *   once the job is committed, and to every instance, whoever queued it (this instance,
 *   another one, the CLI). Several instances then each wake one waiter for the same job;
 *   `FOR UPDATE SKIP LOCKED` and the claim's `status = 'queued'` guard give it to one of
 *   them, and the others go back to sleep.
 * A notice kept here that no local agent can use any more (it went away, or claimed a job of
 * another route) is sent on to every instance (NOTIFY, after the commit), so no queued job
 * is left with agents asleep anywhere.
 *
 * A lost connection is opened again with backoff (250 ms doubling to 10 s, with jitter);
 * notices sent meanwhile are lost, so once it listens again every local waiter tries a claim
 * (`wakeAll`). Until then a waiter is woken only by jobs queued through this instance, or
 * by the end of its wait; and every job is announced to every instance (a job kept here
 * assumes this instance hears the others' notices).
 */
export class PostgresJobNotifier implements JobNotifier, WaitersHere {
  private readonly local = new InProcessJobNotifier();
  private readonly connection: ListenConnection;
  #subscription: ListenSubscription | undefined;
  readonly #notifyAll: (payload: string) => Promise<void>;
  readonly #log: Logger;
  #closed = false;

  /**
   * `connection`: the instance's LISTEN connection; `notifyAll`: a NOTIFY on the jobs'
   * channel, on its own (after the job committed).
   */
  constructor(
    connection: ListenConnection,
    notifyAll: (payload: string) => Promise<void>,
    log: Logger,
  ) {
    this.connection = connection;
    this.#notifyAll = notifyAll;
    this.#log = log;
  }

  /** Whether the jobs' channel is listened to, so that notices arrive. */
  get isListening(): boolean {
    return this.#subscription?.isListening ?? false;
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
   * Listens to the jobs' channel (opening the LISTEN connection if no other part has). A
   * first attempt that fails is logged and retried in the background: the server still
   * serves, its waiters wake at the end of their wait.
   */
  async start(): Promise<void> {
    this.#subscription = await this.connection.subscribe({
      channel: jobsChannel,
      name: 'print queue',
      log: this.#log,
      notice: (payload) => {
        const notice = parseNotice(payload);
        if (notice) this.local.jobQueued(notice.companyId, notice.route);
      },
      // Notices sent while nobody listened are lost: every waiter tries a claim once.
      up: () => this.local.wakeAll(),
      down: () => undefined,
    });
  }

  jobQueued(companyId: number, route: string): void {
    // The transaction announced it: the notice comes back through LISTEN, here as on every
    // other instance. Without a LISTEN connection it cannot, so this instance's waiters
    // are woken directly (after the commit, since the caller calls once it returned).
    if (!this.isListening) this.local.jobQueued(companyId, route);
  }

  takesHere(companyId: number, route: string): boolean {
    return this.isListening && this.local.hasWaiter(companyId, route);
  }

  queuedHere(companyId: number, route: string): void {
    if (!this.local.wakeOne(companyId, route)) this.#announceEverywhere(companyId, route);
  }

  passOn(companyId: number, route: string): void {
    // The notice may have been kept here (no NOTIFY went out): with nobody left here to
    // take it, the other instances hear of it.
    if (!this.local.wakeOne(companyId, route)) this.#announceEverywhere(companyId, route);
  }

  /**
   * NOTIFY, after the job committed. Should it fail (the database out of reach, the server
   * closing), the job stays queued: the other instances' agents find it with the claim
   * that ends their wait, or the next one.
   */
  #announceEverywhere(companyId: number, route: string): void {
    if (this.#closed) return;
    this.#notifyAll(noticeOf(companyId, route, 0)).catch((error: unknown) =>
      this.#log.debug(
        { err: error },
        'print queue: a job could not be announced to the other instances',
      ),
    );
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
    this.#closed = true;
    await this.#subscription?.close();
    await this.local.close();
  }
}
