import type { Agent } from 'undici';
import { type Answer, PrintClient, percentile } from './print-client.ts';
import { cpuSecondsOf } from './spawn.ts';

/** A print-queue server under test: ShopDesk or the Fastify queue baseline. */
export interface QueueTarget {
  name: string;
  /** Up to the API's root, e.g. http://127.0.0.1:40123/api/v1 (always ending so) */
  url: string;
  agentToken: string;
  integratorToken: string;
  /** The server's process, whose CPU time is read from /proc. */
  pid: number | undefined;
}

/** The agent's and the integrator's calls to one server (`PrintClient` bound to its origin). */
export class QueueClient {
  readonly target: QueueTarget;
  private readonly client: PrintClient;
  private readonly origin: string;

  constructor(target: QueueTarget, dispatcher: Agent) {
    this.target = target;
    this.client = new PrintClient(target, dispatcher);
    this.origin = target.url.replace(/\/api\/v1$/, '');
  }

  call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body: unknown,
    options: { agent?: string; signal?: AbortSignal } = {},
  ): Promise<Answer> {
    return this.client.call(this.origin, method, path, body, options);
  }

  agent(route: string): Promise<string> {
    return this.client.agent(this.origin, route);
  }

  createJob(route: string, n: number): Promise<number> {
    return this.client.createJob(this.origin, route, n);
  }
}

export interface Throughput {
  /** The creates that queued the jobs (32 at a time): per second, and server CPU per create, µs. */
  createsPerSecond: number;
  createCpuUs: number | null;
  jobsPerSecond: number;
  claimed: number;
  duplicates: number;
  /** Server CPU per claim+confirm (two requests), µs; null where /proc is not readable. */
  cpuUsPerJob: number | null;
  /** The load generator's own CPU over the round, as a share of one core (1 = saturated). */
  loadCpuShare: number;
  seconds: number;
}

/**
 * `jobs` queued on a fresh route (not timed), then `agentCount` agents on it claiming
 * (`wait: 0`) and confirming in parallel until a claim answers 204.
 */
export async function throughput(
  client: QueueClient,
  route: string,
  jobs: number,
  agentCount: number,
): Promise<Throughput> {
  const agents = await Promise.all(Array.from({ length: agentCount }, () => client.agent(route)));
  let made = 0;
  const createCpuBefore = cpuSecondsOf(client.target.pid);
  const createStarted = performance.now();
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (made < jobs) await client.createJob(route, made++);
    }),
  );
  const createSeconds = (performance.now() - createStarted) / 1000;
  const createCpuAfter = cpuSecondsOf(client.target.pid);
  const claims = new Map<number, number>();
  let duplicates = 0;
  const cpuBefore = cpuSecondsOf(client.target.pid);
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    agents.map(async (agent) => {
      for (;;) {
        const next = await client.call('POST', '/printing/jobs/next', { wait: 0 }, { agent });
        if (next.status === 204) return;
        if (next.status !== 200) throw new Error(`next: ${next.status}`);
        const id = next.body.data.id as number;
        if (claims.has(id)) duplicates++;
        claims.set(id, (claims.get(id) ?? 0) + 1);
        const confirm = await client.call('POST', `/printing/jobs/${id}/confirm`, {}, { agent });
        if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuSecondsOf(client.target.pid);
  const own = process.cpuUsage(ownBefore);
  return {
    createsPerSecond: jobs / createSeconds,
    createCpuUs:
      createCpuBefore === null || createCpuAfter === null
        ? null
        : ((createCpuAfter - createCpuBefore) * 1e6) / jobs,
    jobsPerSecond: claims.size / seconds,
    claimed: claims.size,
    duplicates,
    cpuUsPerJob:
      cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1e6) / jobs,
    loadCpuShare: (own.user + own.system) / 1e6 / seconds,
    seconds,
  };
}

export interface Latency {
  p50: number;
  p99: number;
  max: number;
  samples: number;
  duplicates: number;
}

/**
 * `waiters` agents long-polling one route; one job at a time is created and the time from
 * sending POST /printing/jobs to a waiting agent holding the claimed job is taken.
 */
export async function latency(
  client: QueueClient,
  route: string,
  waiters: number,
  samples: number,
): Promise<Latency> {
  const agents = await Promise.all(Array.from({ length: waiters }, () => client.agent(route)));
  const sentAt = new Map<number, number>();
  const delays: number[] = [];
  const seen = new Set<number>();
  let duplicates = 0;
  let arrived: ((id: number) => void) | undefined;
  let stopping = false;
  for (const agent of agents) {
    void (async () => {
      while (!stopping) {
        const next = await client.call('POST', '/printing/jobs/next', { wait: 30 }, { agent });
        if (next.status !== 200) continue;
        const at = performance.now();
        const id = next.body.data.id as number;
        if (seen.has(id)) duplicates++;
        seen.add(id);
        arrived?.(id);
        (async () => {
          // Give the job's creator a moment to note when it sent it.
          await Promise.resolve();
          delays.push(at - (sentAt.get(id) ?? at));
        })();
        await client.call('POST', `/printing/jobs/${id}/confirm`, {}, { agent });
      }
    })().catch(() => undefined); // The waiters still long-polling end with the server.
  }
  // Let every agent reach its long-poll before the first job.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let n = 0; n < samples; n++) {
    const got = new Promise<number>((resolve) => {
      arrived = resolve;
    });
    const t0 = performance.now();
    const id = await client.createJob(route, n);
    sentAt.set(id, t0);
    await got;
    // Spread the samples so that the waiters are back in their long-poll.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  stopping = true;
  const sorted = [...delays].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted[sorted.length - 1]!,
    samples: sorted.length,
    duplicates,
  };
}

/** One party of a steady run: what creates a job, and the agents that long-poll for it. */
export interface SteadyParty {
  /** Sends `POST /printing/jobs` for the `n`th job (through whichever instance); its id. */
  createJob(n: number): Promise<number>;
  /** Each agent's long-poll (`POST /printing/jobs/next`, `wait` 30) and confirm. */
  waiters: SteadyWaiter[];
}

export interface SteadyWaiter {
  next(signal: AbortSignal): Promise<Answer>;
  confirm(id: number): Promise<Answer>;
}

export interface SteadyOptions {
  /** A job created every so many ms, whether the previous one was claimed or not. */
  intervalMs: number;
  /** How long jobs are created and measured. */
  seconds: number;
  /** Created first, not measured: the JIT and the pools warm up. */
  warmupSeconds: number;
}

export interface SteadyResult {
  /** POST /printing/jobs sent → the agent holding the claimed job, ms. */
  p50: number;
  p99: number;
  max: number;
  samples: number;
  /** Jobs claimed and confirmed a second while jobs were created (the measured part). */
  jobsPerSecond: number;
  duplicates: number;
  /**
   * Still unclaimed 5 s after the last job was sent: a backlog the server could not work
   * off at this rate (they stay queued: not lost, late).
   */
  unclaimed: number;
  /** Jobs created in all, warm-up included (what per-job costs divide by). */
  created: number;
}

/**
 * The steady run: every waiter long-polls one route (wait 30 s), confirms what it gets and
 * long-polls again, while a job is created every `intervalMs` on a fixed schedule (a slow
 * answer does not delay the next job). Per job, the time from sending its POST to the agent
 * holding it claimed; the claim may come back before the POST's own answer, so the job's
 * number, not its id, keys the send time.
 */
export async function steady(party: SteadyParty, options: SteadyOptions): Promise<SteadyResult> {
  const stop = new AbortController();
  const sentAt = new Map<number, number>(); // job number → when its POST was sent
  const numberOf = new Map<number, number>(); // job id → job number
  const claimedAt = new Map<number, number>(); // job id → when its claim came back
  let confirmedInWindow = 0;
  let duplicates = 0;
  let measuring = false;
  const polls = party.waiters.map(async (waiter) => {
    while (!stop.signal.aborted) {
      let next: Answer;
      try {
        next = await waiter.next(stop.signal);
      } catch (error) {
        if (stop.signal.aborted) return;
        throw error;
      }
      if (next.status !== 200) continue;
      const at = performance.now();
      const id = next.body.data.id as number;
      if (claimedAt.has(id)) duplicates++;
      else claimedAt.set(id, at);
      const confirm = await waiter.confirm(id);
      if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
      if (measuring) confirmedInWindow++;
    }
  });
  // Every agent in its long-poll before the first job.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const creates: Promise<void>[] = [];
  const warmupJobs = Math.round((options.warmupSeconds * 1000) / options.intervalMs);
  const measuredJobs = Math.round((options.seconds * 1000) / options.intervalMs);
  const started = performance.now();
  let windowStart = started;
  for (let n = 0; n < warmupJobs + measuredJobs; n++) {
    const due = started + n * options.intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    if (n === warmupJobs) {
      measuring = true;
      windowStart = performance.now();
    }
    sentAt.set(n, performance.now());
    creates.push(party.createJob(n).then((id) => void numberOf.set(id, n)));
  }
  await Promise.all(creates);
  const windowSeconds = (performance.now() - windowStart) / 1000;
  measuring = false;
  const deadline = performance.now() + 5000;
  while (claimedAt.size < numberOf.size && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  stop.abort();
  await Promise.all(polls);
  const delays: number[] = [];
  for (const [id, n] of numberOf) {
    const claimed = claimedAt.get(id);
    if (n >= warmupJobs && claimed !== undefined) delays.push(claimed - sentAt.get(n)!);
  }
  delays.sort((a, b) => a - b);
  return {
    p50: percentile(delays, 0.5),
    p99: percentile(delays, 0.99),
    max: delays[delays.length - 1] ?? Number.NaN,
    samples: delays.length,
    jobsPerSecond: confirmedInWindow / windowSeconds,
    duplicates,
    unclaimed: [...numberOf.keys()].filter((id) => !claimedAt.has(id)).length,
    created: numberOf.size,
  };
}

/** `waiters` new agents of one server on `route`, and jobs created there. */
export async function steadyPartyOf(
  client: QueueClient,
  route: string,
  waiters: number,
): Promise<SteadyParty> {
  const agents = await Promise.all(Array.from({ length: waiters }, () => client.agent(route)));
  return {
    createJob: (n) => client.createJob(route, n),
    waiters: agents.map((agent) => ({
      next: (signal) => client.call('POST', '/printing/jobs/next', { wait: 30 }, { agent, signal }),
      confirm: (id) => client.call('POST', `/printing/jobs/${id}/confirm`, {}, { agent }),
    })),
  };
}

/** One line of a steady run's figures. */
export function steadyLine(name: string, result: SteadyResult): string {
  return (
    `${name}: POST→claim p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, ` +
    `max ${result.max.toFixed(2)} ms over ${result.samples} jobs; ${result.jobsPerSecond.toFixed(0)} jobs/s ` +
    `claimed and confirmed; duplicates ${result.duplicates}, unclaimed after 5 s ${result.unclaimed}`
  );
}
