import type { Logger } from 'pino';
import type { ClaimedJob } from '../../shared/printing.ts';
import type { ServerConfig } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import type { Clock } from '../time.ts';
import type { WebhookOutbox } from '../webhooks/index.ts';
import { AgentIdentities, type AgentRef } from './agents/agent-identities.ts';
import type { Presence } from './agents/presence.ts';
import { enabledRouteNames } from './agents/read-route-list.ts';
import { sweepAgents } from './agents/sweep-agents.ts';
import { sweepPrinterAttention } from './agents/sweep-printer-attention.ts';
import { claimJob, giveBackClaim } from './jobs/claim-job.ts';
import { PrintJobChanges } from './jobs/job-changes.ts';
import type { JobRenderer } from './jobs/job-renderer.ts';
import type { PrintQueue } from './jobs/print-queue.ts';
import { type SweepResult, sweepJobs } from './jobs/sweep-jobs.ts';
import type { JobNotifier } from './long-poll/job-notifier.ts';
import { type Cancellation, LongPolls } from './long-poll/long-poll.ts';
import { openQueueStore } from './store/open-queue-store.ts';
import type { PrintQueueStore } from './store/queue-store.ts';

export interface PrintingDeps {
  storage: Storage;
  /** Where the queue's and the agents' webhook events are recorded. */
  outbox: WebhookOutbox;
  /** What renders template jobs at their claim (templates implements it; the wiring hands it in). */
  renderer: JobRenderer;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
}

/** How often leases and expiries are swept. */
export const sweepIntervalMs = 5000;

/**
 * The print queue's long-lived parts, wired once: the store (SQLite or PostgreSQL) and the
 * one place its changes are announced (`PrintJobChanges`: webhook outbox, the waiting
 * agents' wake-up), the notifier that wakes long-polls, the long-polls, the sweep timer,
 * and the cache of agent identities.
 */
export class PrintingService {
  readonly store: PrintQueueStore;
  readonly notifier: JobNotifier;
  /** What the job operations take (`jobs/`): the storage and the store. */
  readonly queue: PrintQueue;
  readonly agents = new AgentIdentities();
  readonly #longPolls: LongPolls;
  readonly #deps: PrintingDeps;
  readonly #jobListeners = new Set<(companyId: number) => void>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<SweepResult> | undefined;

  constructor(deps: PrintingDeps) {
    this.#deps = deps;
    const changes = new PrintJobChanges(
      deps.outbox,
      (companyId, route) => this.notifier.jobQueued(companyId, route),
      (companyId) => {
        for (const listener of this.#jobListeners) listener(companyId);
      },
    );
    this.store = openQueueStore(deps.storage, changes);
    this.notifier = this.store.openNotifier(deps.log);
    this.queue = {
      storage: deps.storage,
      store: this.store,
      outbox: deps.outbox,
      renderer: deps.renderer,
    };
    this.#longPolls = new LongPolls(this.notifier);
  }

  /** Whether a long-poll of this process is asleep, waiting for a job (`LongPolls.anyAsleep`). */
  anyLongPollAsleep(): boolean {
    return this.#longPolls.anyAsleep();
  }

  /** Sweeps once now (jobs that ran out while the server was down), then on a timer. */
  async start(): Promise<void> {
    await this.notifier.start();
    await this.sweep();
    this.#timer = setInterval(() => {
      // A tick that finds a sweep still running skips: the next tick comes soon enough.
      if (this.#sweeping) return;
      this.sweep().catch((error) => this.#deps.log.error({ err: error }, 'print sweep failed'));
    }, sweepIntervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => undefined);
    await this.notifier.close();
  }

  /**
   * Fails lapsed leases and expires stale jobs as of the clock's now, and finds the agents
   * that went silent (agent.offline); tests call it. Sweeps never overlap: a call made while
   * one runs waits for it, then sweeps again with the time as it is then (so a test that
   * just moved the clock sees its own sweep).
   */
  sweep(): Promise<SweepResult> {
    const { storage, clock, config, log } = this.#deps;
    const start = async () => {
      const now = clock.now();
      const result = await sweepJobs(this.queue, storage.db, now, config.heldNoticeSeconds);
      const offline = await sweepAgents(this.#deps, storage.db, now);
      const printers = await sweepPrinterAttention(
        this.#deps,
        storage.db,
        now,
        config.printerAttentionSeconds,
      );
      if (printers.attention.length > 0 || printers.recovered.length > 0) {
        log.info(printers, 'printer attention sweep');
      }
      if (result.leaseExpired.length > 0 || result.expired.length > 0 || offline.length > 0) {
        log.info(
          { lease_expired: result.leaseExpired, expired: result.expired, offline },
          'print sweep',
        );
      }
      return result;
    };
    // The clock is read when the sweep starts: now, or when the running one is done.
    const run = this.#sweeping ? this.#sweeping.catch(() => undefined).then(start) : start();
    this.#sweeping = run;
    const clear = () => {
      if (this.#sweeping === run) this.#sweeping = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** The agent's routes were replaced: its waiting long-polls re-read them and claim. */
  routesChanged(agent: AgentRef): void {
    this.#longPolls.routesChanged(agent);
  }

  /** The registered agent X-Agent-Id names, in the caller's company (else 409), read with `db`. */
  requireAgent(db: Db, uuid: string, companyId: number): Promise<AgentRef> {
    return this.agents.require(db, uuid, companyId);
  }

  /** Whether the agent is still registered to its company, read now (never cached). */
  agentStillRegistered(db: Db, agent: AgentRef): Promise<boolean> {
    return this.agents.stillRegistered(db, agent);
  }

  /** Calls `listener` after each committed change of a job made by this process. */
  onJobChange(listener: (companyId: number) => void): () => void {
    this.#jobListeners.add(listener);
    return () => this.#jobListeners.delete(listener);
  }

  /** What an agent's `online` is measured against: now (each row says until when it is present). */
  presence(): Presence {
    return { now: this.#deps.clock.now() };
  }

  /**
   * Long-poll (`long-poll/long-poll.ts`): claims a job for the agent, waiting up to
   * `waitSeconds` for one to be queued; `'refused'` when `stillAllowed` (the caller's token
   * and agent, read again after every wake-up) no longer holds. `onRoutes`: only these of its
   * enabled routes (the agent names those whose printers can print now).
   */
  nextJob(
    db: Db,
    agent: AgentRef,
    waitSeconds: number,
    cancel: Cancellation,
    stillAllowed?: () => Promise<boolean>,
    onRoutes?: readonly string[],
  ): Promise<ClaimedJob | 'refused' | undefined> {
    const { clock, config } = this.#deps;
    return this.#longPolls.nextJob(agent, waitSeconds, cancel, {
      claim: () => claimJob(this.queue, db, agent, clock.now(), config.leaseSeconds, onRoutes),
      giveBack: (claim) => giveBackClaim(this.queue, db, agent, claim),
      // Listens only where it may claim: the routes the agent can print on now, if it said.
      routes: async () => {
        const names = await enabledRouteNames(db, agent.rowId);
        return onRoutes === undefined ? names : names.filter((name) => onRoutes.includes(name));
      },
      ...(stillAllowed && { stillAllowed }),
    });
  }
}
