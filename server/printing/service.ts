import type { Logger } from 'pino';
import type { ClaimedJob } from '../../shared/printing.ts';
import type { ServerConfig } from '../config.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Clock } from '../time.ts';
import { type AgentRef, enabledRouteNames, findAgentRow } from './agents.ts';
import { claimNextJob, undoClaim } from './claim-next-job.ts';
import type { Presence } from './list-agents.ts';
import { InProcessJobNotifier, type JobNotifier } from './notifier.ts';
import { PostgresJobNotifier } from './pg-notifier.ts';
import type { PrintQueue } from './print-queue.ts';
import { sweepAgents } from './sweep-agents.ts';
import { type SweepResult, sweepJobs } from './sweep-jobs.ts';

export interface PrintingDeps {
  storage: Storage;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  notifier?: JobNotifier;
}

/**
 * PostgreSQL: LISTEN/NOTIFY, so that waiters on every instance hear of jobs queued through
 * any of them (or the CLI). SQLite: in-process, plus the external-write watch below.
 */
function defaultNotifier({ storage, log }: PrintingDeps): JobNotifier {
  if (storage.dialect === 'postgres' && storage.dedicatedClient) {
    return new PostgresJobNotifier(storage.dedicatedClient, log);
  }
  return new InProcessJobNotifier();
}

/** How often leases and expiries are swept. */
export const sweepIntervalMs = 5000;

/** How often, while agents wait, SQLite is asked whether another process wrote (the CLI). */
export const externalWriteCheckMs = 250;

/**
 * What ends a long-poll: the client gone or the server shutting down. `aborted` is asked on
 * every claim and must cost nothing; `signal` (listeners) is made only for a wait. A
 * route handler's context is one.
 */
export interface Cancellation {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

/**
 * The print queue's long-lived parts: the notifier that wakes long-polls, the sweep timer,
 * and a cache of agent identities (an agent's uuid → row and company never changes once
 * registered, so the cache needs no invalidation, even with several instances).
 */
export class PrintingService {
  readonly notifier: JobNotifier;
  /** For the operations that queue a job: they wake this process's waiters themselves. */
  readonly queue: PrintQueue;
  private readonly agents = new Map<string, AgentRef>();
  /** Per agent row id, its waiting long-polls, told when the agent's routes change. */
  private readonly routeWatchers = new Map<number, Set<() => void>>();
  private timer: NodeJS.Timeout | undefined;
  private watch: NodeJS.Timeout | undefined;
  private sweeping: Promise<SweepResult> | undefined;

  private readonly deps: PrintingDeps;

  constructor(deps: PrintingDeps) {
    this.deps = deps;
    this.notifier = deps.notifier ?? defaultNotifier(deps);
    this.queue = { storage: deps.storage, notifier: this.notifier };
  }

  /** Sweeps once now (jobs that ran out while the server was down), then on a timer. */
  async start(): Promise<void> {
    await this.notifier.start();
    await this.sweep();
    this.timer = setInterval(() => {
      // A tick that finds a sweep still running skips: the next tick comes soon enough.
      if (this.sweeping) return;
      this.sweep().catch((error) => this.deps.log.error({ err: error }, 'print sweep failed'));
    }, sweepIntervalMs);
    this.timer.unref();
    this.watchExternalWrites();
  }

  /**
   * Jobs queued by another process on the same SQLite file (`shopdesk job create`) reach
   * no in-process notifier. SQLite's data_version (the mark the token cache uses) changes
   * only when another connection commits, so while agents wait it is read every 250 ms
   * and, when it moved, every waiter tries a claim once. This reads one pragma, never the
   * jobs. PostgreSQL needs none of it: LISTEN/NOTIFY reaches every instance.
   */
  private watchExternalWrites(): void {
    const { storage } = this.deps;
    if (storage.dialect !== 'sqlite') return;
    let mark = storage.externalChangeMark();
    this.watch = setInterval(() => {
      if (!this.notifier.hasWaiters()) return;
      const now = storage.externalChangeMark();
      if (now === mark) return;
      mark = now;
      this.notifier.wakeAll();
    }, externalWriteCheckMs);
    this.watch.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    clearInterval(this.watch);
    this.timer = undefined;
    this.watch = undefined;
    await this.sweeping?.catch(() => undefined);
    await this.notifier.close();
  }

  /**
   * Fails lapsed leases and expires stale jobs as of the clock's now, and finds the agents
   * that went silent (agent.offline); tests call it. Sweeps never overlap: a call made while
   * one runs waits for it, then sweeps again with the time as it is then (so a test that
   * just moved the clock sees its own sweep).
   */
  sweep(): Promise<SweepResult> {
    const start = async () => {
      const now = this.deps.clock.now();
      const result = await sweepJobs(this.deps.storage, now);
      const offline = await sweepAgents(this.deps.storage, now, this.deps.config.heartbeatSeconds);
      if (result.leaseExpired.length > 0 || result.expired.length > 0 || offline.length > 0) {
        this.deps.log.info(
          { lease_expired: result.leaseExpired, expired: result.expired, offline },
          'print sweep',
        );
      }
      return result;
    };
    // The clock is read when the sweep starts: now, or when the running one is done.
    const run = this.sweeping ? this.sweeping.catch(() => undefined).then(start) : start();
    this.sweeping = run;
    const clear = () => {
      if (this.sweeping === run) this.sweeping = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /** The agent's routes were replaced: its waiting long-polls re-read them and claim. */
  routesChanged(agent: AgentRef): void {
    for (const watcher of [...(this.routeWatchers.get(agent.rowId) ?? [])]) watcher();
  }

  /**
   * The agent registered with this UUID (as the route read it from X-Agent-Id), in the
   * caller's company.
   */
  async requireAgent(uuid: string, companyId: number): Promise<AgentRef> {
    const agent = await this.lookupAgent(uuid.toLowerCase());
    // Another company's agent reads as unknown: its existence is not revealed.
    if (!agent || agent.companyId !== companyId) {
      throw new Conflict(
        'No agent with this X-Agent-Id is registered for this company: register it with POST /printing/register first.',
      );
    }
    return agent;
  }

  /** What an agent's `online` is measured against: now, and the heartbeat interval. */
  presence(): Presence {
    return { now: this.deps.clock.now(), heartbeatSeconds: this.deps.config.heartbeatSeconds };
  }

  /** Whether the agent is still registered to its company, read now (never cached). */
  async agentStillRegistered(agent: AgentRef): Promise<boolean> {
    const row = await findAgentRow(this.deps.storage.db, agent.uuid);
    return row?.id === agent.rowId && row.company_id === agent.companyId;
  }

  private async lookupAgent(uuid: string): Promise<AgentRef | undefined> {
    const cached = this.agents.get(uuid);
    if (cached) return cached;
    const row = await findAgentRow(this.deps.storage.db, uuid);
    if (!row) return undefined;
    const agent = { rowId: row.id, companyId: row.company_id, uuid: row.uuid };
    if (this.agents.size >= 10_000) this.agents.clear();
    this.agents.set(uuid, agent);
    return agent;
  }

  /**
   * Long-poll: claims a job for the agent, waiting up to `waitSeconds` for one to be queued.
   * The wait is woken by the notifier, never by polling the database. The waiter subscribes
   * before its second claim attempt, so a job queued between an empty attempt and the
   * subscription is not missed. A client that goes away (or a server shutting down) stops
   * the wait; a claim made while the client went away is undone, so nothing is handed to a
   * socket that can no longer take it. A notice this waiter received but did not use is
   * passed on to the next waiter of that route. When the agent's routes are replaced
   * meanwhile, the wait claims and listens on the new ones. After every wake-up and before
   * its claim, `stillAllowed` (the caller's token and agent, read again) must hold, else the
   * wait ends with `'refused'` and claims nothing. `cancel.signal` is read only when the
   * wait sleeps: a claim that finds a job at once asks `cancel.aborted` alone.
   */
  async nextJob(
    agent: AgentRef,
    waitSeconds: number,
    cancel: Cancellation,
    stillAllowed?: () => Promise<boolean>,
  ): Promise<ClaimedJob | 'refused' | undefined> {
    const { storage, clock, config } = this.deps;
    const notifier = this.notifier;
    const deadline = performance.now() + waitSeconds * 1000;
    let routes: string[] | undefined;
    let routesChanged = false;
    let unsubscribe: (() => void) | undefined;
    let notice: string | undefined;
    let wake: (() => void) | undefined;
    /** Set after a wait (or a notice): the caller may have lost its right meanwhile. */
    let woken = false;
    // PUT /printing/routes during the wait: claim and listen on the new routes from now on.
    const onRoutesChanged = () => {
      routesChanged = true;
      wake?.();
    };
    const watchers = this.routeWatchers.get(agent.rowId) ?? new Set<() => void>();
    watchers.add(onRoutesChanged);
    this.routeWatchers.set(agent.rowId, watchers);
    const passOn = (route: string | undefined) => {
      if (route) notifier.passOn(agent.companyId, route);
    };
    try {
      for (;;) {
        if (cancel.aborted) return undefined;
        // A token revoked (or expired) while its long-poll waited, or an agent gone, claims
        // nothing: checked after every wake, before the claim.
        if (woken && stillAllowed && !(await stillAllowed())) return 'refused';
        woken = false;
        if (routesChanged) {
          routesChanged = false;
          routes = undefined;
          unsubscribe?.();
          unsubscribe = undefined;
        }
        const used = notice;
        notice = undefined;
        const claim = await claimNextJob(storage, agent, clock.now(), config.leaseSeconds);
        if (claim) {
          if (cancel.aborted) {
            // Queued again; the undo wakes the route's waiters itself.
            await undoClaim(this.queue, agent, claim);
            if (used !== claim.job.route) passOn(used);
            return undefined;
          }
          if (used !== claim.job.route) passOn(used);
          return claim.job;
        }
        // Nothing to claim: the job a used notice announced went to another agent.
        const left = deadline - performance.now();
        if (left <= 0) return undefined;
        if (notice !== undefined) {
          woken = true;
          continue;
        }
        if (!unsubscribe) {
          routes ??= await enabledRouteNames(storage.db, agent.rowId);
          unsubscribe = notifier.subscribe(agent.companyId, routes, (route) => {
            unsubscribe = undefined;
            notice = route;
            wake?.();
          });
          continue;
        }
        const signal = cancel.signal;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, left);
          signal.addEventListener('abort', done, { once: true });
          wake = done;
          function done() {
            clearTimeout(timer);
            signal.removeEventListener('abort', done);
            wake = undefined;
            resolve();
          }
        });
        woken = true;
      }
    } finally {
      unsubscribe?.();
      watchers.delete(onRoutesChanged);
      if (watchers.size === 0) this.routeWatchers.delete(agent.rowId);
      passOn(notice);
    }
  }
}
