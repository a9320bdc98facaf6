import type { AgentRef } from '../agents/agent-identities.ts';
import type { JobNotifier } from './job-notifier.ts';
import {
  type Cancellation,
  type LongPollOutcome,
  type LongPollSteps,
  LongPollWait,
} from './long-poll-wait.ts';

export type { Cancellation, LongPollSteps } from './long-poll-wait.ts';

/**
 * The long-polls of this process: each one a `LongPollWait` (long-poll-wait.ts, where the
 * rules of a wait are), woken by the notifier, and told when its agent's routes change.
 */
export class LongPolls {
  readonly #notifier: JobNotifier;
  /** Per agent row id, its waiting long-polls. */
  readonly #waits = new Map<number, Set<LongPollWait>>();

  constructor(notifier: JobNotifier) {
    this.#notifier = notifier;
  }

  /** The agent's routes were replaced: its waiting long-polls re-read them and claim. */
  routesChanged(agent: AgentRef): void {
    for (const wait of [...(this.#waits.get(agent.rowId) ?? [])]) wait.routesChanged();
  }

  /**
   * Whether a long-poll is asleep, its claims done: a job queued now reaches it only by a
   * wake-up, which reads its token again (what a test waits for before it queues one).
   */
  anyAsleep(): boolean {
    for (const waits of this.#waits.values()) {
      for (const wait of waits) if (wait.state === 'sleeping') return true;
    }
    return false;
  }

  /**
   * Long-poll: claims a job for the agent, waiting up to `waitSeconds` for one to be queued
   * on its routes; `'refused'` when `stillAllowed` no longer holds after a wake-up.
   */
  async nextJob(
    agent: AgentRef,
    waitSeconds: number,
    cancel: Cancellation,
    steps: LongPollSteps,
  ): Promise<LongPollOutcome> {
    const wait = new LongPollWait(this.#notifier, agent.companyId, waitSeconds, cancel, steps);
    const waits = this.#waits.get(agent.rowId) ?? new Set<LongPollWait>();
    waits.add(wait);
    this.#waits.set(agent.rowId, waits);
    try {
      return await wait.run();
    } finally {
      waits.delete(wait);
      if (waits.size === 0) this.#waits.delete(agent.rowId);
    }
  }
}
