import type { KeyObject } from 'node:crypto';
import type { Logger } from 'pino';
import type { WebhookPolicy } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import type { Clock } from '../time.ts';
import { claimDueDeliveries, type DueDelivery } from './claim-deliveries.ts';
import { attemptDelivery, type DeliveryClient } from './deliver.ts';
import type { WebhookOutbox } from './outbox.ts';
import { type AttemptResult, recordAttempts } from './record-attempts.ts';
import type { DeliveryTarget, SigningKeys } from './signing-keys.ts';

export interface DispatcherDeps {
  storage: Storage;
  /** An endpoint the server disables tells every process's subscription cache. */
  outbox: WebhookOutbox;
  /** Schedules: when a delivery is due, when a secret expires. */
  clock: Clock;
  log: Logger;
  policy: WebhookPolicy;
  keys: SigningKeys;
  client: DeliveryClient;
  /** The whole attempt, answer included (10 s). */
  timeoutMs: number;
  /** How often due deliveries are looked for without a nudge (retries, other processes). */
  pollMs: number;
  /** Attempts in flight at once. */
  concurrency: number;
  /** `webhook-timestamp`: the real time, whatever the schedule clock says. */
  wallClock: () => number;
  random: () => number;
}

/**
 * Sends what the outbox holds. Woken (`nudge`) after every commit that wrote deliveries in
 * this process, and every `pollMs` for retries that fell due and for rows other processes
 * wrote. Each pick takes up to the free attempt slots' worth of due deliveries
 * (`claimDueDeliveries`, a lease), attempts them concurrently, and the results are written
 * in batches (`recordAttempts`): whoever finishes first while a batch is being written
 * waits for the next one, so a busy dispatcher commits once per many attempts.
 */
export class WebhookDispatcher {
  private readonly deps: DispatcherDeps;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stopping = new AbortController();
  private results: AttemptResult[] = [];
  private picking: Promise<void> | undefined;
  private pickAgain = false;
  private pickScheduled = false;
  private flushing: Promise<void> | undefined;
  /** The last pick filled every slot: more may be due, look again when a slot frees. */
  private backlog = false;
  private timer: NodeJS.Timeout | undefined;
  /** Attempts this dispatcher made (tests see that several instances share the work). */
  attempts = 0;

  constructor(deps: DispatcherDeps) {
    this.deps = deps;
  }

  start(): void {
    this.timer = setInterval(() => this.nudge(), this.deps.pollMs);
    this.timer.unref();
    this.nudge();
  }

  /** Something may be due: pick soon (many nudges in one turn make one pick). */
  nudge(): void {
    if (this.stopping.signal.aborted) return;
    if (this.picking) {
      this.pickAgain = true;
      return;
    }
    if (this.pickScheduled) return;
    this.pickScheduled = true;
    setImmediate(() => {
      this.pickScheduled = false;
      this.pick();
    });
  }

  /**
   * Picks now and resolves when every attempt started meanwhile has been made and
   * recorded (tests move the clock, then call it).
   */
  async runDue(): Promise<void> {
    this.pick();
    await this.idle();
  }

  /** Resolves when no pick, attempt or write is under way. */
  async idle(): Promise<void> {
    for (;;) {
      const busy = [this.picking, this.flushing, ...this.inFlight].filter(Boolean);
      if (busy.length === 0 && this.results.length === 0 && !this.pickScheduled) return;
      if (busy.length === 0) {
        // Results waiting for a write, or a pick about to start: let them begin.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      await Promise.allSettled(busy);
    }
  }

  /**
   * Stops picking, cuts the attempts in flight (their deliveries are released, due again at
   * once, without counting an attempt) and writes what is left.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping.abort();
    await this.idle();
  }

  private pick(): void {
    if (this.stopping.signal.aborted) return;
    if (this.picking) {
      this.pickAgain = true;
      return;
    }
    this.picking = this.pickLoop()
      .catch((error) => this.deps.log.error({ err: error }, 'webhooks: picking deliveries failed'))
      .finally(() => {
        this.picking = undefined;
      });
  }

  private async pickLoop(): Promise<void> {
    do {
      this.pickAgain = false;
      const free = this.deps.concurrency - this.inFlight.size;
      if (free <= 0) {
        this.backlog = true;
        return;
      }
      const due = await claimDueDeliveries(this.deps.storage, this.deps.clock.now(), free);
      this.backlog = due.length === free;
      if (due.length > 0) await this.startAttempts(due);
      if (this.backlog) this.pickAgain = true;
    } while (this.pickAgain && !this.stopping.signal.aborted);
  }

  private async startAttempts(due: DueDelivery[]): Promise<void> {
    const targets = await this.deps.keys.targetsOf(due.map((d) => d.endpoint_id));
    for (const delivery of due) {
      const target = targets.get(delivery.endpoint_id);
      if (!target) {
        this.finish({ kind: 'orphaned', delivery });
        continue;
      }
      if (!target.enabled) {
        this.finish({ kind: 'endpoint_disabled', delivery });
        continue;
      }
      const attempt = this.attempt(delivery, target)
        .then((result) => this.finish(result))
        .catch((error) => this.deps.log.error({ err: error }, 'webhooks: attempt failed'));
      this.inFlight.add(attempt);
      attempt.finally(() => {
        this.inFlight.delete(attempt);
        // With a backlog, pick again once half the slots are free: one pick of many rows
        // rather than a pick (a write) per finished attempt.
        if (this.backlog && this.inFlight.size <= this.deps.concurrency / 2) this.nudge();
      });
    }
  }

  /** Makes one attempt. Never throws: whatever goes wrong is the attempt's outcome. */
  private async attempt(delivery: DueDelivery, target: DeliveryTarget): Promise<AttemptResult> {
    const { deps } = this;
    if (this.stopping.signal.aborted) return { kind: 'released', delivery };
    let keys: KeyObject[];
    try {
      keys = deps.keys.keysOf(target, deps.clock.now());
    } catch (error) {
      // A secret sealed with another key (an instance started with its own key).
      const message = `cannot sign: ${(error as Error).message}`;
      deps.log.error({ endpoint_id: target.id }, `webhooks: ${message}`);
      return {
        kind: 'attempted',
        delivery,
        at: deps.clock.now(),
        outcome: { delivered: false, status: null, body: null, error: message },
        endpointFailing: target.failing,
      };
    }
    this.attempts += 1;
    const outcome = await attemptDelivery(
      {
        url: target.url,
        eventId: delivery.event_id,
        body: delivery.body,
        keys,
        timestampSeconds: Math.floor(deps.wallClock() / 1000),
      },
      {
        client: deps.client,
        policy: deps.policy,
        timeoutMs: deps.timeoutMs,
        signal: this.stopping.signal,
      },
    );
    // Cut short by the shutdown: not the receiver's failure, so not counted.
    if (this.stopping.signal.aborted && !outcome.delivered) return { kind: 'released', delivery };
    return {
      kind: 'attempted',
      delivery,
      outcome,
      at: deps.clock.now(),
      endpointFailing: target.failing,
    };
  }

  private finish(result: AttemptResult): void {
    this.results.push(result);
    this.flush();
  }

  /** Writes the results gathered so far; results that come meanwhile wait for the next write. */
  private flush(): void {
    if (this.flushing || this.results.length === 0) return;
    const batch = this.results;
    this.results = [];
    this.flushing = recordAttempts(this.deps, batch, this.deps.clock.now(), this.deps.random)
      .catch((error) => {
        // The deliveries keep their lease and are tried again when it ends.
        this.deps.log.error({ err: error }, 'webhooks: recording attempts failed');
      })
      .finally(() => {
        this.flushing = undefined;
        this.flush();
      });
  }
}
