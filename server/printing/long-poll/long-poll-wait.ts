import type { ClaimedJob } from '../../../shared/printing.ts';
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

/** How a long-poll ends: with the job it claimed, refused (its right lapsed), or with nothing. */
export type LongPollOutcome = ClaimedJob | 'refused' | undefined;

/**
 * Where one long-poll stands:
 * - `claiming`: a claim is tried (at the start, and after every `checking`);
 * - `checking`: woken (a job queued on its routes, its routes replaced, its time up, its
 *   client gone): whether it may still claim is read again before the next claim;
 * - `sleeping`: nothing to claim; it waits for the notifier, a change of routes, its
 *   deadline or its cancellation;
 * - `done`: over, with its outcome.
 */
export type LongPollState = 'claiming' | 'checking' | 'sleeping' | 'done';

/**
 * One agent's long-poll: claims a job, waiting up to `waitSeconds` for one to be queued on
 * its routes. The wait is woken by the notifier, never by polling the database.
 *
 * The rules it keeps:
 * - It listens before its last claim, so a job queued between an empty claim and the
 *   listening is not missed: the first empty claim reads the routes, listens and claims
 *   once more; a woken wait listens again before its claim (a job queued during that claim
 *   wakes it once more).
 * - Each notice wakes one waiter (`JobNotifier`). A notice this wait received and did not
 *   use (it claimed a job of another route, or ended first) is passed on to the next
 *   waiter of that route, so no queued job is left with its agents asleep.
 * - After every wake-up, and before its claim, `stillAllowed` (the caller's token and agent,
 *   read again) must hold, else it ends `'refused'` and claims nothing.
 * - A cancelled wait (client gone, server shutting down) claims nothing: a claim made while
 *   its client went away is given back. A cancellation already made when the wait would
 *   sleep ends it at once (an abort listener added then would never fire: the wait would
 *   hold its request until its deadline).
 * - `cancel.signal` is read only when the wait sleeps: a claim that finds a job at once
 *   asks `cancel.aborted` alone.
 * - Its routes replaced meanwhile (`routesChanged`), it claims and listens on the new ones.
 */
export class LongPollWait {
  readonly #notifier: JobNotifier;
  readonly #companyId: number;
  readonly #cancel: Cancellation;
  readonly #steps: LongPollSteps;
  readonly #deadline: number;
  #state: LongPollState = 'claiming';
  #outcome: LongPollOutcome;
  /** The routes it listens on, once read; cleared when they are replaced. */
  #routes: string[] | undefined;
  #routesChanged = false;
  /** Set while it listens (a notice ends the listening: the notifier wakes each waiter once). */
  #unsubscribe: (() => void) | undefined;
  /** The route of a notice received and not yet used by a claim. */
  #notice: string | undefined;
  /** Ends the sleep, while it sleeps. */
  #wake: (() => void) | undefined;
  /** Its deadline came (a timer may fire a fraction of a millisecond before the clock says so). */
  #timeUp = false;

  constructor(
    notifier: JobNotifier,
    companyId: number,
    waitSeconds: number,
    cancel: Cancellation,
    steps: LongPollSteps,
  ) {
    this.#notifier = notifier;
    this.#companyId = companyId;
    this.#cancel = cancel;
    this.#steps = steps;
    this.#deadline = performance.now() + waitSeconds * 1000;
  }

  get state(): LongPollState {
    return this.#state;
  }

  /** The agent's routes were replaced: claim and listen on the new ones from now on. */
  routesChanged(): void {
    this.#routesChanged = true;
    this.#wake?.();
  }

  /** Runs the long-poll to its end. */
  async run(): Promise<LongPollOutcome> {
    try {
      while (this.#state !== 'done') {
        if (this.#state === 'claiming') await this.#claim();
        else if (this.#state === 'checking') await this.#check();
        else await this.#sleep();
      }
      return this.#outcome;
    } finally {
      this.#state = 'done';
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
      this.#passOn(this.#notice);
      this.#notice = undefined;
    }
  }

  #end(outcome: LongPollOutcome): void {
    this.#state = 'done';
    this.#outcome = outcome;
  }

  async #check(): Promise<void> {
    if (this.#cancel.aborted) return this.#end(undefined);
    // A token revoked (or expired) while its long-poll waited, or an agent gone, claims
    // nothing.
    const { stillAllowed } = this.#steps;
    if (stillAllowed && !(await stillAllowed())) return this.#end('refused');
    this.#state = 'claiming';
  }

  async #claim(): Promise<void> {
    if (this.#cancel.aborted) return this.#end(undefined);
    if (this.#routesChanged) {
      this.#routesChanged = false;
      this.#routes = undefined;
      this.#unsubscribe?.();
      this.#unsubscribe = undefined;
    }
    if (this.#routes && !this.#unsubscribe) this.#listen(this.#routes);
    const used = this.#notice;
    this.#notice = undefined;
    let claim: Claim | undefined;
    try {
      claim = await this.#steps.claim();
    } catch (error) {
      this.#passOn(used);
      throw error;
    }
    if (claim) {
      if (used !== claim.job.route) this.#passOn(used);
      if (this.#cancel.aborted) {
        // Queued again; giving it back announces it to the route's waiters itself.
        await this.#steps.giveBack(claim);
        return this.#end(undefined);
      }
      return this.#end(claim.job);
    }
    // Nothing to claim: the job a used notice announced went to another agent.
    if (this.#timeUp || performance.now() >= this.#deadline) return this.#end(undefined);
    if (this.#notice !== undefined) {
      this.#state = 'checking'; // A job was queued during the claim.
      return;
    }
    if (!this.#unsubscribe) {
      // The first empty claim: listen, then claim once more (stays `claiming`).
      this.#routes ??= await this.#steps.routes();
      this.#listen(this.#routes);
      return;
    }
    this.#state = 'sleeping';
  }

  async #sleep(): Promise<void> {
    // What came since the claim (a notice, new routes) is handled before any sleep.
    if (this.#notice !== undefined || this.#routesChanged) {
      this.#state = 'checking';
      return;
    }
    const signal = this.#cancel.signal;
    if (signal.aborted) return this.#end(undefined);
    const left = this.#deadline - performance.now();
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(
        () => {
          this.#timeUp = true;
          done();
        },
        Math.max(0, left),
      );
      signal.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
    this.#state = 'checking';
  }

  #listen(routes: readonly string[]): void {
    this.#unsubscribe = this.#notifier.subscribe(this.#companyId, routes, (route) => {
      this.#unsubscribe = undefined;
      this.#notice = route;
      this.#wake?.();
    });
  }

  #passOn(route: string | undefined): void {
    if (route !== undefined) this.#notifier.passOn(this.#companyId, route);
  }
}
