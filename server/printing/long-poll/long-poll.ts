import type { ClaimedJob } from '../../../shared/printing.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import type { Claim } from '../jobs/claim-job.ts';
import type { JobNotifier } from './job-notifier.ts';

/**
 * What ends a long-poll: the client gone or the server shutting down. `aborted` is asked on
 * every claim and must cost nothing; `signal` (listeners) is made only for a wait. A
 * route handler's context is one.
 */
export interface Cancellation {
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

/** What a long-poll does besides waiting: the print queue's operations, for one agent. */
export interface LongPollSteps {
  /** Claims the agent's next job, if one is queued. */
  claim(): Promise<Claim | undefined>;
  /** Gives back a claim its client can no longer take. */
  giveBack(claim: Claim): Promise<unknown>;
  /** The names of the agent's enabled routes, read now. */
  routes(): Promise<string[]>;
  /** Whether the caller may still claim (its token and agent, read again). */
  stillAllowed?: () => Promise<boolean>;
}

/**
 * The long-polls of this process: claims for an agent, waiting for a job to be queued.
 */
export class LongPolls {
  readonly #notifier: JobNotifier;
  /** Per agent row id, its waiting long-polls, told when the agent's routes change. */
  readonly #routeWatchers = new Map<number, Set<() => void>>();

  constructor(notifier: JobNotifier) {
    this.#notifier = notifier;
  }

  /** The agent's routes were replaced: its waiting long-polls re-read them and claim. */
  routesChanged(agent: AgentRef): void {
    for (const watcher of [...(this.#routeWatchers.get(agent.rowId) ?? [])]) watcher();
  }

  /**
   * Long-poll: claims a job for the agent, waiting up to `waitSeconds` for one to be queued.
   * The wait is woken by the notifier, never by polling the database. The waiter subscribes
   * before its second claim attempt, so a job queued between an empty attempt and the
   * subscription is not missed. A client that goes away (or a server shutting down) stops
   * the wait; a claim made while the client went away is given back, so nothing is handed
   * to a socket that can no longer take it. A notice this waiter received but did not use
   * is passed on to the next waiter of that route. When the agent's routes are replaced
   * meanwhile, the wait claims and listens on the new ones. After every wake-up and before
   * its claim, `stillAllowed` (the caller's token and agent, read again) must hold, else the
   * wait ends with `'refused'` and claims nothing. `cancel.signal` is read only when the
   * wait sleeps: a claim that finds a job at once asks `cancel.aborted` alone.
   */
  async nextJob(
    agent: AgentRef,
    waitSeconds: number,
    cancel: Cancellation,
    steps: LongPollSteps,
  ): Promise<ClaimedJob | 'refused' | undefined> {
    const notifier = this.#notifier;
    const { stillAllowed } = steps;
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
    const watchers = this.#routeWatchers.get(agent.rowId) ?? new Set<() => void>();
    watchers.add(onRoutesChanged);
    this.#routeWatchers.set(agent.rowId, watchers);
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
        const claim = await steps.claim();
        if (claim) {
          if (cancel.aborted) {
            // Queued again; giving it back wakes the route's waiters itself.
            await steps.giveBack(claim);
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
          routes ??= await steps.routes();
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
      if (watchers.size === 0) this.#routeWatchers.delete(agent.rowId);
      passOn(notice);
    }
  }
}
