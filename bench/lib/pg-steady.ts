/**
 * `bench/printing-postgres.ts --steady [--against DIR]`: the print queue's wake-up under a
 * steady load, over several instances on one PostgreSQL, against another checkout's in the
 * same run.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type FreshDatabase,
  freshDatabase,
  type Instance,
  removeDir,
  seedCompany,
  startInstance,
} from './pg-cluster.ts';
import { PrintClient } from './print-client.ts';
import { type SteadyResult, steady, steadyLine } from './print-load.ts';
import { cpuSecondsOf } from './spawn.ts';
import { fixed, formatTable } from './table.ts';

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** The command line's options of the steady run. */
export const steadyOptions = {
  steady: { type: 'boolean', default: false },
  against: { type: 'string' },
  rounds: { type: 'string', default: '3' },
  interval: { type: 'string', default: '5' },
  seconds: { type: 'string', default: '10' },
} as const;

/** What a round cost: statements sent to PostgreSQL (round trips), and the servers' CPU. */
interface Cost {
  statements: number;
  cpuUs: number;
}

/** The instances' statements so far (their query counters) and their CPU seconds. */
async function costs(instances: Instance[]): Promise<{ statements: number; cpu: number }> {
  let statements = 0;
  let cpu = 0;
  for (const instance of instances) {
    const { kinds } = await instance.counts();
    for (const { count } of Object.values(kinds)) statements += count;
    cpu += cpuSecondsOf(instance.child.pid) ?? 0;
  }
  return { statements, cpu };
}

/** `count` agents on `route`, registered through the instances in turn. */
function agentsOn(client: PrintClient, instances: Instance[], route: string, count: number) {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const on = i % instances.length;
      return { on, uuid: await client.agent(instances[on]!.origin, route) };
    }),
  );
}

/** One checkout's instances on a database of their own, for the steady run. */
interface Cluster {
  name: string;
  instances: Instance[];
  client: PrintClient;
  db: FreshDatabase;
}

async function startCluster(
  name: string,
  adminUrl: string,
  suffix: string,
  count: number,
  dir: string,
  checkout?: string,
): Promise<Cluster> {
  const db = await freshDatabase(adminUrl, suffix);
  const instances: Instance[] = [];
  try {
    instances.push(await startInstance(`${suffix}-1`, db.url, dir, checkout));
    const tokens = await seedCompany(db.url);
    for (let n = 2; n <= count; n++) {
      instances.push(await startInstance(`${suffix}-${n}`, db.url, dir, checkout));
    }
    return { name, instances, client: new PrintClient(tokens), db };
  } catch (error) {
    await Promise.all(instances.map((instance) => instance.stop()));
    await db.drop();
    throw error;
  }
}

/**
 * `--steady`: `agents` agents long-polling one route, spread over the instances, while a job
 * is created every `intervalMs` through the instances in turn; per round, POST → claim p50
 * and p99 and jobs/s. `against`: the same, in alternating rounds, on the instances of
 * another checkout (a worktree of the commit before) over a database of their own.
 */
export async function steadyBench(options: {
  adminUrl: string;
  instances: number;
  agents: number;
  rounds: number;
  intervalMs: number;
  seconds: number;
  against?: string;
}): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-pg-'));
  const clusters: Cluster[] = [];
  let ok = true;
  try {
    clusters.push(await startCluster('ShopDesk', options.adminUrl, 'here', options.instances, dir));
    if (options.against) {
      clusters.push(
        await startCluster(
          'ShopDesk, --against',
          options.adminUrl,
          'against',
          options.instances,
          dir,
          options.against,
        ),
      );
    }
    const cpu = cpus();
    console.log(
      `Steady, PostgreSQL, ${options.instances} instances a checkout — ${cpu.length} CPUs, Node ${process.version}; ` +
        `${options.agents} agents long-polling one route, a job every ${options.intervalMs} ms for ${options.seconds} s a round; load average ${load()} at the start`,
    );
    const results = new Map<string, Array<SteadyResult & Cost>>();
    // A first round on each, not counted: the JIT, the pools and the plans warm up alike.
    for (let round = -1; round < options.rounds; round++) {
      for (const { name, instances, client } of clusters) {
        const route = `steady-${round + 1}`;
        const agents = await agentsOn(client, instances, route, options.agents);
        const before = await costs(instances);
        const result = await steady(
          {
            createJob: (n) => client.createJob(instances[n % instances.length]!.origin, route, n),
            waiters: agents.map(({ on, uuid }) => {
              const origin = instances[on]!.origin;
              return {
                next: (signal) =>
                  client.call(
                    origin,
                    'POST',
                    '/printing/jobs/next',
                    { wait: 30 },
                    {
                      agent: uuid,
                      signal,
                    },
                  ),
                confirm: (id) =>
                  client.call(origin, 'POST', `/printing/jobs/${id}/confirm`, {}, { agent: uuid }),
              };
            }),
          },
          { intervalMs: options.intervalMs, seconds: options.seconds, warmupSeconds: 1 },
        );
        const after = await costs(instances);
        const perJob = {
          statements: (after.statements - before.statements) / result.created,
          cpuUs: ((after.cpu - before.cpu) * 1e6) / result.created,
        };
        const label = round < 0 ? 'warm-up (not counted)' : `round ${round + 1}`;
        console.log(
          `${steadyLine(`${label}, ${name}`, result)}; ${fixed(perJob.statements, 1)} statements ` +
            `and ${fixed(perJob.cpuUs)} µs of the servers' CPU a job (load average ${load()})`,
        );
        if (result.duplicates > 0) ok = false;
        if (round >= 0) results.set(name, [...(results.get(name) ?? []), { ...result, ...perJob }]);
      }
    }
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return sorted[Math.floor((sorted.length - 1) / 2)]!;
    };
    console.log(
      `\n${formatTable(
        [
          'server',
          'POST→claim p50 ms',
          'p99 ms (target ≤ 20)',
          'jobs/s',
          'statements a job',
          'server CPU µs a job',
        ],
        [...results].map(([name, list]) => [
          name,
          fixed(median(list.map((r) => r.p50)), 2),
          fixed(median(list.map((r) => r.p99)), 2),
          fixed(median(list.map((r) => r.jobsPerSecond))),
          fixed(median(list.map((r) => r.statements)), 1),
          fixed(median(list.map((r) => r.cpuUs))),
        ]),
      )}\n(medians of ${options.rounds} rounds; load average ${load()} at the end)`,
    );
  } finally {
    for (const cluster of clusters) {
      await cluster.client.close();
      await Promise.all(cluster.instances.map((instance) => instance.stop()));
      await cluster.db.drop();
    }
    removeDir(dir);
  }
  return ok;
}
