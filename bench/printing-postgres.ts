/**
 * The print queue over several instances on one PostgreSQL (`npm run bench -- --postgres
 * [ADMIN_URL]`, or `npx tsx bench/printing-postgres.ts [--postgres ADMIN_URL] [--instances
 * 3] [--agents 50] [--jobs 10000] [--samples 300] [--no-baseline]`; or `--steady [--against
 * DIR] [--rounds 3] [--interval 5] [--seconds 10]`, below).
 *
 * A fresh database `shopdesk_bench_<pid>` is made on the server of ADMIN_URL (default: the
 * tests' postgres://postgres@127.0.0.1:5432/test) and dropped after. Then:
 *  1. `--instances` `shopdesk serve` processes on it (the first migrates before the others
 *     start), each counting its queries (bench/lib/pg-query-counter.ts);
 *  2. `--jobs` jobs created through all instances in turn (32 at a time; timed apart);
 *  3. claim + confirm: `--agents` agents spread over the instances, all on one route,
 *     long-polling `POST /printing/jobs/next` and confirming each job, until every job is
 *     confirmed; jobs/s in total. Checked: each job claimed and confirmed exactly once
 *     (per job id), and in the database no job left queued or claimed;
 *  4. enqueue → claim: `--agents` other agents long-polling (wait 30 s) on another route,
 *     one job at a time created through the instances in turn; the time from sending the
 *     POST to the agent holding the claimed job, split by whether the agent that got it
 *     waits on the instance that created it or on another;
 *  5. where the time goes: statements and round trips per job (from the counters: every
 *     `pg` query is one round trip), the milliseconds they took as the server saw them, and
 *     the CPU of the servers, of PostgreSQL's backends and of this load generator;
 *  6. the baseline, graphile-worker on the same database (bench/lib/graphile-baseline.ts).
 * The exit code is 1 when a job was lost or handed out twice.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type BaselineResult, runGraphileWorker } from './lib/graphile-baseline.ts';
import {
  backendCpu,
  countsBetween,
  cpuBetween,
  type FreshDatabase,
  freshDatabase,
  type Instance,
  removeDir,
  seedCompany,
  startInstance,
} from './lib/pg-cluster.ts';
import type { QueryCounts } from './lib/pg-query-counter.ts';
import { steadyBench, steadyOptions } from './lib/pg-steady.ts';
import { PrintClient, percentile } from './lib/print-client.ts';
import { cpuSecondsOf } from './lib/spawn.ts';
import { fixed, formatTable } from './lib/table.ts';

export const defaultAdminUrl = 'postgres://postgres@127.0.0.1:5432/test';

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

interface Snapshot {
  at: number;
  counts: QueryCounts[];
  servers: number;
  backends: Map<number, number>;
  self: number;
}

async function snapshot(adminUrl: string, db: FreshDatabase, instances: Instance[]) {
  const counts = await Promise.all(instances.map((instance) => instance.counts()));
  let servers = 0;
  for (const instance of instances) servers += cpuSecondsOf(instance.child.pid) ?? 0;
  return {
    at: performance.now(),
    counts,
    servers,
    backends: await backendCpu(adminUrl, db.name),
    self: cpuSecondsOf(process.pid) ?? 0,
  } satisfies Snapshot;
}

/** Statements per job by kind, round trips per job, and the CPU per job of each party. */
function costTable(before: Snapshot, after: Snapshot, jobs: number): string {
  const kinds = countsBetween(before.counts, after.counts);
  const rows = Object.entries(kinds).sort((a, b) => b[1].count - a[1].count);
  const total = rows.reduce((sum, [, { count }]) => sum + count, 0);
  const totalMs = rows.reduce((sum, [, { ms }]) => sum + ms, 0);
  const table = formatTable(
    ['statement', 'per job', 'ms per call (as the server waited)'],
    [
      ...rows.map(([kind, { count, ms }]) => [kind, fixed(count / jobs, 2), fixed(ms / count, 2)]),
      ['all (= round trips)', fixed(total / jobs, 2), fixed(totalMs / Math.max(1, total), 2)],
    ],
  );
  const seconds = (after.at - before.at) / 1000;
  const us = (cpu: number) =>
    `${fixed((cpu / jobs) * 1e6)} µs/job (${fixed((cpu / seconds) * 100)} % of a core)`;
  return (
    `${table}\n` +
    `CPU: servers ${us(after.servers - before.servers)}; PostgreSQL backends ${us(cpuBetween(before.backends, after.backends))}; load generator ${us(after.self - before.self)}`
  );
}

async function createJobs(
  client: PrintClient,
  instances: Instance[],
  route: string,
  jobs: number,
): Promise<Map<number, number>> {
  const createdOn = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < jobs) {
        const n = next++;
        const on = n % instances.length;
        createdOn.set(await client.createJob(instances[on]!.origin, route, n), on);
      }
    }),
  );
  return createdOn;
}

async function agentsOn(client: PrintClient, instances: Instance[], route: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const on = i % instances.length;
      return { on, uuid: await client.agent(instances[on]!.origin, route) };
    }),
  );
}

interface Drained {
  seconds: number;
  claims: Map<number, number>;
  confirms: Map<number, number>;
  crossInstance: number;
}

/** Every agent long-polls and confirms until `jobs` confirms came back. */
async function drain(
  client: PrintClient,
  instances: Instance[],
  agents: Array<{ on: number; uuid: string }>,
  createdOn: Map<number, number>,
  jobs: number,
): Promise<Drained> {
  const claims = new Map<number, number>();
  const confirms = new Map<number, number>();
  let confirmed = 0;
  let crossInstance = 0;
  const stop = new AbortController();
  const started = performance.now();
  let ended = started;
  await Promise.all(
    agents.map(async ({ on, uuid }) => {
      const origin = instances[on]!.origin;
      while (!stop.signal.aborted) {
        const next = await longPoll(client, origin, uuid, 5, stop.signal);
        if (!next) return;
        if (next.status === 204) continue;
        if (next.status !== 200) throw new Error(`next: ${next.status}`);
        const id = next.body.data.id as number;
        claims.set(id, (claims.get(id) ?? 0) + 1);
        if (createdOn.get(id) !== on) crossInstance++;
        const confirm = await client.call(
          origin,
          'POST',
          `/printing/jobs/${id}/confirm`,
          {},
          { agent: uuid },
        );
        if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
        confirms.set(id, (confirms.get(id) ?? 0) + 1);
        if (++confirmed >= jobs) {
          ended = performance.now();
          stop.abort();
        }
      }
    }),
  );
  return { seconds: (ended - started) / 1000, claims, confirms, crossInstance };
}

/** One `jobs/next` long-poll of `uuid`; undefined once `signal` has stopped the run. */
async function longPoll(
  client: PrintClient,
  origin: string,
  uuid: string,
  wait: number,
  signal: AbortSignal,
): Promise<Awaited<ReturnType<PrintClient['call']>> | undefined> {
  try {
    return await client.call(
      origin,
      'POST',
      '/printing/jobs/next',
      { wait },
      { agent: uuid, signal },
    );
  } catch (error) {
    if (signal.aborted) return undefined;
    throw error;
  }
}

interface Latencies {
  cross: number[];
  same: number[];
  duplicates: number;
}

/** One job at a time through the instances in turn, to agents long-polling on all of them. */
async function latencies(
  client: PrintClient,
  instances: Instance[],
  agentCount: number,
  samples: number,
): Promise<Latencies> {
  const route = 'latency';
  const agents = await agentsOn(client, instances, route, agentCount);
  const seen = new Set<number>();
  const result: Latencies = { cross: [], same: [], duplicates: 0 };
  let arrived: ((got: { id: number; on: number; at: number }) => void) | undefined;
  const stop = new AbortController();
  const polls = agents.map(async ({ on, uuid }) => {
    const origin = instances[on]!.origin;
    while (!stop.signal.aborted) {
      const next = await longPoll(client, origin, uuid, 30, stop.signal);
      if (!next) return;
      if (next.status !== 200) continue;
      const at = performance.now();
      const id = next.body.data.id as number;
      if (seen.has(id)) result.duplicates++;
      seen.add(id);
      arrived?.({ id, on, at });
      await client.call(origin, 'POST', `/printing/jobs/${id}/confirm`, {}, { agent: uuid });
    }
  });
  // Every agent in its long-poll before the first job.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (let n = 0; n < samples; n++) {
    const got = new Promise<{ id: number; on: number; at: number }>((resolve) => {
      arrived = resolve;
    });
    const on = n % instances.length;
    const t0 = performance.now();
    const id = await client.createJob(instances[on]!.origin, route, n);
    const claim = await got;
    if (claim.id !== id) throw new Error(`job ${id} sent, job ${claim.id} claimed`);
    (claim.on === on ? result.same : result.cross).push(claim.at - t0);
    // The agent that took it confirms, then long-polls again.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  stop.abort();
  await Promise.all(polls);
  return result;
}

export async function multiInstanceBench(options: {
  adminUrl: string;
  instances: number;
  agents: number;
  jobs: number;
  samples: number;
  baseline: boolean;
}): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-pg-'));
  const db = await freshDatabase(options.adminUrl);
  const instances: Instance[] = [];
  let client: PrintClient | undefined;
  let ok = true;
  try {
    // The first migrates the fresh database; the others start on a current schema.
    instances.push(await startInstance('instance-1', db.url, dir));
    const tokens = await seedCompany(db.url);
    for (let n = 2; n <= options.instances; n++) {
      instances.push(await startInstance(`instance-${n}`, db.url, dir));
    }
    client = new PrintClient(tokens);
    const loadAtStart = load();
    const route = 'throughput';
    const agents = await agentsOn(client, instances, route, options.agents);

    const beforeCreate = await snapshot(options.adminUrl, db, instances);
    const createdOn = await createJobs(client, instances, route, options.jobs);
    const afterCreate = await snapshot(options.adminUrl, db, instances);
    const createSeconds = (afterCreate.at - beforeCreate.at) / 1000;
    process.stderr.write(`  created ${options.jobs} jobs in ${fixed(createSeconds, 2)} s\n`);

    const drained = await drain(client, instances, agents, createdOn, options.jobs);
    const afterDrain = await snapshot(options.adminUrl, db, instances);
    const loadAfterDrain = load();

    let lost = 0;
    let duplicates = 0;
    for (const id of createdOn.keys()) {
      const claimed = drained.claims.get(id) ?? 0;
      const confirmed = drained.confirms.get(id) ?? 0;
      if (claimed === 0 || confirmed === 0) lost++;
      if (claimed > 1 || confirmed > 1) duplicates++;
    }
    const states = await db.query<{ status: string; n: number }>(
      'select status, count(*)::int as n from print_jobs group by status order by status',
    );
    const [events] = await db.query<{ claimed: number; printed: number }>(
      `select count(*) filter (where to_status = 'claimed')::int as claimed,
              count(*) filter (where to_status = 'printed')::int as printed from print_job_events`,
    );
    const stuck = states
      .filter(({ status }) => status === 'queued' || status === 'claimed')
      .reduce((sum, { n }) => sum + n, 0);
    if (lost > 0 || duplicates > 0 || stuck > 0 || createdOn.size !== options.jobs) ok = false;

    const lat = await latencies(client, instances, options.agents, options.samples);
    if (lat.duplicates > 0) ok = false;
    const loadAfterLatency = load();

    const jobsPerSecond = options.jobs / drained.seconds;
    const cross = [...lat.cross].sort((a, b) => a - b);
    const same = [...lat.same].sort((a, b) => a - b);
    const cpu = cpus();
    console.log(
      `\nPrint queue on PostgreSQL, ${options.instances} instances — ${cpu.length} CPUs (${cpu[0]?.model.trim()}), Node ${process.version}; ` +
        `load average ${loadAtStart} at the start, ${loadAfterDrain} after claim+confirm, ${loadAfterLatency} at the end\n`,
    );
    console.log(
      `create: ${options.jobs} jobs through ${options.instances} instances in turn, 32 at a time: ${fixed(options.jobs / createSeconds)} jobs/s`,
    );
    console.log(
      `claim+confirm: ${options.agents} agents (${options.instances} instances), one route, long-polling: ` +
        `${fixed(jobsPerSecond)} jobs/s in total (${fixed(drained.seconds, 2)} s; target ≥ 1,500) — ` +
        `${drained.crossInstance} jobs claimed on another instance than their creator's`,
    );
    console.log(
      `  every job once: ${createdOn.size} created, ${drained.claims.size} claimed, ${drained.confirms.size} confirmed, lost ${lost}, duplicates ${duplicates}; ` +
        `database: ${states.map(({ status, n }) => `${status} ${n}`).join(', ')} (queued or claimed: ${stuck}); events: claimed ${events?.claimed}, printed ${events?.printed}`,
    );
    console.log(
      `enqueue→claim, ${options.agents} agents long-polling over ${options.instances} instances, one job at a time (target: cross-instance p99 ≤ 20 ms):\n` +
        formatTable(
          ['claimed on', 'jobs', 'p50 ms', 'p99 ms', 'max ms'],
          [
            ['another instance', cross],
            ['the creating instance', same],
          ].map(([name, sorted]) => {
            const values = sorted as number[];
            return [
              name as string,
              String(values.length),
              fixed(percentile(values, 0.5), 2),
              fixed(percentile(values, 0.99), 2),
              fixed(values[values.length - 1] ?? Number.NaN, 2),
            ];
          }),
        ) +
        `\n  duplicates ${lat.duplicates}`,
    );
    console.log(`\nWhere the time goes, per job created (${options.jobs}):\n`);
    console.log(costTable(beforeCreate, afterCreate, options.jobs));
    console.log(`\nWhere the time goes, per job claimed and confirmed (${options.jobs}):\n`);
    console.log(costTable(afterCreate, afterDrain, options.jobs));

    if (options.baseline) {
      await Promise.all(instances.map((instance) => instance.stop()));
      instances.length = 0;
      const results: BaselineResult[] = [];
      for (const settings of [
        {
          name: 'graphile-worker, defaults',
          concurrency: options.agents,
          maxPoolSize: 30,
          batched: false,
        },
        {
          name: 'graphile-worker, batched',
          concurrency: options.agents,
          maxPoolSize: 30,
          batched: true,
        },
      ]) {
        results.push(await runGraphileWorker(db.url, options.jobs, settings));
        const [left] = await db.query<{ n: number }>(
          'select count(*)::int as n from graphile_worker.jobs',
        );
        if (left?.n !== 0) throw new Error(`${settings.name}: ${left?.n} jobs left`);
      }
      console.log(
        `\nBaseline: a PostgreSQL job queue without HTTP on the same database (${options.jobs} jobs, no-op task, concurrency ${options.agents}, pool of 30 = the three instances' pools); load average at the end ${load()}:\n`,
      );
      console.log(
        formatTable(
          ['queue', 'jobs/s', 'worker CPU µs/job', 'ShopDesk ÷ this'],
          [
            [`ShopDesk, ${options.instances} instances over HTTP`, fixed(jobsPerSecond), '', ''],
            ...results.map((result) => [
              result.name,
              fixed(result.jobsPerSecond),
              fixed((result.workerCpu / result.jobs) * 1e6),
              `${fixed(jobsPerSecond / result.jobsPerSecond, 2)}x`,
            ]),
            [
              'graphile-worker, published (not run here)',
              '15,600',
              '',
              `${fixed(jobsPerSecond / 15_600, 2)}x`,
            ],
          ],
        ),
      );
    }
  } finally {
    await client?.close();
    await Promise.all(instances.map((instance) => instance.stop()));
    await db.drop();
    removeDir(dir);
  }
  return ok;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const { values } = parseArgs({
    options: {
      ...steadyOptions,
      postgres: { type: 'string', default: defaultAdminUrl },
      instances: { type: 'string', default: '3' },
      agents: { type: 'string', default: '50' },
      jobs: { type: 'string', default: '10000' },
      samples: { type: 'string', default: '300' },
      'no-baseline': { type: 'boolean', default: false },
    },
  });
  const common = {
    adminUrl: values.postgres,
    instances: Number(values.instances),
    agents: Number(values.agents),
  };
  if (values.against && !values.steady) throw new Error('--against goes with --steady');
  const ok = values.steady
    ? await steadyBench({
        ...common,
        rounds: Number(values.rounds),
        intervalMs: Number(values.interval),
        seconds: Number(values.seconds),
        ...(values.against && { against: values.against }),
      })
    : await multiInstanceBench({
        ...common,
        jobs: Number(values.jobs),
        samples: Number(values.samples),
        baseline: !values['no-baseline'],
      });
  if (!ok) process.exitCode = 1;
}
