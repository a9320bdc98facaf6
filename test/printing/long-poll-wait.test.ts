import { describe, expect, it } from 'vitest';
import type { Claim } from '../../server/printing/jobs/claim-job.ts';
import type { JobNotifier } from '../../server/printing/long-poll/job-notifier.ts';
import {
  type Cancellation,
  type LongPollSteps,
  LongPollWait,
} from '../../server/printing/long-poll/long-poll-wait.ts';
import type { ClaimedJob } from '../../shared/printing.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * One long-poll's state machine (server/printing/long-poll/long-poll-wait.ts) against a fake
 * notifier and fake queue steps: no server, no database. The notifier's own rule (one
 * waiter woken a notice, the longest waiting) is the real notifier's, tested with the server
 * in long-poll.test.ts; here the fake only records who listens and what is passed on.
 */

interface Subscription {
  routes: string[];
  listener: (route: string) => void;
  active: boolean;
}

class FakeNotifier implements JobNotifier {
  readonly subscriptions: Subscription[] = [];
  readonly passedOn: string[] = [];

  /** A job queued on `route`: the first listener of that route hears it; whether one did. */
  queued(route: string): boolean {
    const subscription = this.subscriptions.find((s) => s.active && s.routes.includes(route));
    if (!subscription) return false;
    subscription.active = false;
    subscription.listener(route);
    return true;
  }

  listening(): string[][] {
    return this.subscriptions.filter((s) => s.active).map((s) => s.routes);
  }

  subscribe(_companyId: number, routes: readonly string[], listener: (route: string) => void) {
    const subscription = { routes: [...routes], listener, active: true };
    this.subscriptions.push(subscription);
    return () => {
      subscription.active = false;
    };
  }

  passOn(_companyId: number, route: string): void {
    this.passedOn.push(route);
  }

  jobQueued(): void {}
  wakeAll(): void {}
  hasWaiters(): boolean {
    return this.listening().length > 0;
  }
  async start(): Promise<void> {}
  async close(): Promise<void> {}
}

const claimOf = (id: number, route: string): Claim => ({
  job: { id, route } as ClaimedJob,
  eventId: id * 10,
});

/** A queue of jobs the fake `claim` takes from, and what the wait asked of it. */
function fakeSteps(options: { routes?: string[]; allowed?: () => boolean } = {}) {
  const queued: Claim[] = [];
  const calls = { claims: 0, routeReads: 0, checks: 0, givenBack: [] as Claim[] };
  let duringClaim: (() => void) | undefined;
  const routes = options.routes ?? ['front'];
  const steps: LongPollSteps = {
    async claim() {
      calls.claims++;
      const found = queued.shift();
      const hook = duringClaim;
      duringClaim = undefined;
      hook?.(); // after the claim's read: what it does, the claim did not see
      return found;
    },
    async giveBack(claim) {
      calls.givenBack.push(claim);
    },
    async routes() {
      calls.routeReads++;
      return routes;
    },
    ...(options.allowed && {
      stillAllowed: async () => {
        calls.checks++;
        return options.allowed!();
      },
    }),
  };
  return {
    steps,
    calls,
    queue: (claim: Claim) => queued.push(claim),
    /** Runs `hook` inside the next claim, after its read, before it answers. */
    duringNextClaim: (hook: () => void) => {
      duringClaim = hook;
    },
  };
}

/** A cancellation that counts how often its signal is asked for. */
function fakeCancellation() {
  const controller = new AbortController();
  let signalReads = 0;
  const cancel: Cancellation = {
    get aborted() {
      return controller.signal.aborted;
    },
    get signal() {
      signalReads++;
      return controller.signal;
    },
  };
  return { cancel, abort: () => controller.abort(), signalReads: () => signalReads };
}

const company = 7;

function start(
  notifier: FakeNotifier,
  steps: LongPollSteps,
  cancel = fakeCancellation().cancel,
  waitSeconds = 30,
) {
  const wait = new LongPollWait(notifier, company, waitSeconds, cancel, steps);
  return { wait, outcome: wait.run() };
}

describe('a long-poll wait', () => {
  it('claims at once when a job is queued: no listening, no abort signal made', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ allowed: () => true });
    queue.queue(claimOf(1, 'front'));
    const cancellation = fakeCancellation();
    const { wait, outcome } = start(notifier, queue.steps, cancellation.cancel);
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 1 });
    expect(wait.state).toBe('done');
    expect(queue.calls).toMatchObject({ claims: 1, routeReads: 0, checks: 0 });
    expect(notifier.subscriptions).toHaveLength(0);
    expect(cancellation.signalReads()).toBe(0);
  });

  it('waits: an empty claim reads the routes, listens, claims once more, then sleeps', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ routes: ['front', 'back'] });
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    expect(queue.calls).toMatchObject({ claims: 2, routeReads: 1 });
    expect(notifier.listening()).toEqual([['front', 'back']]);
    queue.queue(claimOf(2, 'back'));
    expect(notifier.queued('back')).toBe(true);
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 2 });
    expect(notifier.listening()).toEqual([]);
    expect(notifier.passedOn).toEqual([]);
  });

  it('wakes on a notice, reads its right again, listens again before its claim, and claims', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ allowed: () => true });
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    // The job went to another agent first: the woken wait claims nothing and sleeps again,
    // listening (since before its claim) without claiming twice.
    notifier.queued('front');
    await waitFor('asleep again', () => wait.state === 'sleeping' && queue.calls.claims === 3);
    expect(queue.calls.checks).toBe(1);
    expect(notifier.listening()).toEqual([['front']]);
    queue.queue(claimOf(3, 'front'));
    notifier.queued('front');
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 3 });
    expect(queue.calls).toMatchObject({ claims: 4, checks: 2 });
  });

  it('a job queued during its claim wakes it again instead of being missed', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps();
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    // Woken; during the claim that follows, after its read, the next job is queued.
    queue.duringNextClaim(() => {
      queue.queue(claimOf(4, 'front'));
      notifier.queued('front');
    });
    notifier.queued('front');
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 4 });
    expect(queue.calls.claims).toBe(4);
  });

  it('a token revoked while waiting: refused, nothing claimed, the notice passed on', async () => {
    let allowed = true;
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ allowed: () => allowed });
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    allowed = false;
    queue.queue(claimOf(5, 'front'));
    notifier.queued('front');
    expect(await outcome).toBe('refused');
    expect(queue.calls.claims).toBe(2);
    expect(notifier.passedOn).toEqual(['front']);
  });

  it('the client gone while it sleeps: ends without a claim, no longer listening', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ allowed: () => true });
    const cancellation = fakeCancellation();
    const { wait, outcome } = start(notifier, queue.steps, cancellation.cancel);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    cancellation.abort();
    expect(await outcome).toBeUndefined();
    expect(queue.calls).toMatchObject({ claims: 2, checks: 0 });
    expect(notifier.listening()).toEqual([]);
  });

  it('a claim made while its client went away is given back, the notice passed on', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps();
    const cancellation = fakeCancellation();
    const { wait, outcome } = start(notifier, queue.steps, cancellation.cancel);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    queue.queue(claimOf(6, 'other'));
    queue.duringNextClaim(() => cancellation.abort());
    notifier.queued('front');
    expect(await outcome).toBeUndefined();
    expect(queue.calls.givenBack.map((claim) => claim.job.id)).toEqual([6]);
    expect(notifier.passedOn).toEqual(['front']);
  });

  it('a cancellation made during its last claim ends the wait at once, without sleeping', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps();
    const cancellation = fakeCancellation();
    // 30 s of wait: were it to sleep on the aborted signal, the test would time out.
    const { wait, outcome } = start(notifier, queue.steps, cancellation.cancel, 30);
    queue.duringNextClaim(() => undefined); // the first claim
    await waitFor('its first claim', () => queue.calls.claims >= 1);
    queue.duringNextClaim(() => cancellation.abort());
    expect(await outcome).toBeUndefined();
    expect(wait.state).toBe('done');
    expect(notifier.listening()).toEqual([]);
  });

  it('ends at its deadline after a last claim, and passes on nothing', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ allowed: () => true });
    const { outcome } = start(notifier, queue.steps, fakeCancellation().cancel, 0.05);
    expect(await outcome).toBeUndefined();
    // First claim, the claim after listening, and the last one once its time was up.
    expect(queue.calls).toMatchObject({ claims: 3, checks: 1 });
    expect(notifier.listening()).toEqual([]);
    expect(notifier.passedOn).toEqual([]);
  });

  it('a notice it does not use (it claimed a job of another route) is passed on', async () => {
    const notifier = new FakeNotifier();
    const queue = fakeSteps({ routes: ['front', 'back'] });
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    queue.queue(claimOf(8, 'back'));
    notifier.queued('front');
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 8 });
    expect(notifier.passedOn).toEqual(['front']);
  });

  it('its routes replaced while it sleeps: it claims, then listens on the new ones', async () => {
    const notifier = new FakeNotifier();
    const routes = ['before'];
    const queue = fakeSteps({ routes });
    const { wait, outcome } = start(notifier, queue.steps);
    await waitFor('the wait asleep', () => wait.state === 'sleeping');
    routes.splice(0, 1, 'after');
    wait.routesChanged();
    await waitFor('asleep on the new routes', () => queue.calls.routeReads === 2);
    await waitFor('asleep again', () => wait.state === 'sleeping');
    expect(notifier.listening()).toEqual([['after']]);
    queue.queue(claimOf(9, 'after'));
    notifier.queued('after');
    expect((await outcome) as ClaimedJob).toMatchObject({ id: 9 });
  });
});
