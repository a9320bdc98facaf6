/**
 * Print-queue benchmark: `npx tsx bench/printing.ts [--jobs N] [--agents N] [--waiters N]
 * [--samples N] [--rounds N] [--warmup N] [--postgres URL] [--webhook] [--no-baseline]
 * [--against DIR] [--cpu-prof DIR] [--steady [--interval MS] [--seconds N]]`.
 *
 * Beside ShopDesk, the Fastify queue baseline (bench/servers/fastify-queue.ts: Fastify +
 * better-sqlite3, the same routes and bodies, long-poll woken in-process, as an integrator
 * would write it) runs the same load in its own process, in alternating rounds; the
 * summary prints both and the ratios (`--no-baseline`: ShopDesk alone). `--against DIR`: the
 * baseline is instead the ShopDesk of another checkout (`git worktree add DIR main`), run
 * the same way: to weigh a change of the server in one run, rounds alternating.
 *
 * `--webhook`: the company has an endpoint subscribed to every event (`["*"]`), on a
 * receiver in this process that answers 204, so every create, claim and confirm also writes
 * and sends an event; without it no endpoint exists and the print queue pays nothing for
 * webhooks (the subscription cache answers "none").
 *
 * Starts the real server (startApp on a temporary SQLite file, or with `--postgres` on a
 * fresh database created on that PostgreSQL server and dropped after; no rate limit,
 * silent log)
 * in a child process, so that the server and this load generator each have a core, then
 * measures (bench/lib/print-load.ts):
 *  1. claim + confirm throughput: N queued jobs, `--agents` agents on one route claiming
 *     (`wait: 0`) and confirming in parallel; jobs/s and duplicates (must be 0);
 *  2. enqueue → claim latency: `--waiters` agents long-polling one route; one job at a
 *     time is created and the time from sending POST /printing/jobs to the waiting agent
 *     holding the claimed job is taken; p50 and p99.
 * `--steady` measures instead, per round and server: `--waiters` agents long-polling one
 * route while a job is created every `--interval` ms (5) for `--seconds` (10), whether the
 * last was claimed or not; POST → claim p50 and p99, and jobs/s claimed and confirmed.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent } from 'undici';
import { startBenchApp } from './lib/bench-app.ts';
import type { Tokens } from './lib/print-client.ts';
import {
  type Latency,
  latency,
  QueueClient,
  type QueueTarget,
  type SteadyResult,
  steady,
  steadyLine,
  steadyPartyOf,
  type Throughput,
  throughput,
} from './lib/print-load.ts';
import { cpuSecondsOf, type RunningServer, startServer } from './lib/spawn.ts';
import { fixed, formatTable, ratio } from './lib/table.ts';

interface Ready extends Tokens {
  url: string;
}

/** The child: the real server over a fresh database, until the parent disconnects. */
async function serve(): Promise<void> {
  const { createCompany } = await import('../server/companies/create-company.ts');
  const { issuePrintTokens } = await import('./lib/print-tokens.ts');
  const { app, close } = await startBenchApp();
  const storage = app.services.storage;
  const company = await createCompany(storage.db, 'Bench shop');
  const hookUrl = process.env.BENCH_WEBHOOK_URL;
  if (hookUrl) {
    const { createEndpoint } = await import('../server/webhooks/create-endpoint.ts');
    await createEndpoint(
      app.services.webhooks.endpoints,
      storage.db,
      company,
      { url: hookUrl, events: ['*'] },
      new Date(),
    );
  }
  const ready: Ready = {
    url: `${app.url}/api/v1`,
    ...(await issuePrintTokens(storage, company)),
  };
  process.send!(ready);
  process.once('disconnect', async () => {
    await close();
    process.exit(0);
  });
}

async function run(): Promise<void> {
  const { values } = parseArgs({
    options: {
      jobs: { type: 'string', default: '5000' },
      agents: { type: 'string', default: '20' },
      waiters: { type: 'string', default: '50' },
      samples: { type: 'string', default: '300' },
      rounds: { type: 'string', default: '2' },
      // Unrecorded rounds first, on every server: the JIT and the caches warm up alike.
      warmup: { type: 'string', default: '1' },
      postgres: { type: 'string' },
      webhook: { type: 'boolean', default: false },
      // ShopDesk alone, without the Fastify queue baseline.
      'no-baseline': { type: 'boolean', default: false },
      // Another checkout (a git worktree): its ShopDesk is the baseline, to weigh a change.
      against: { type: 'string' },
      // A directory: the server children write V8 CPU profiles there when they exit.
      'cpu-prof': { type: 'string' },
      // Only the steady run: --waiters agents long-polling, a job every --interval ms.
      steady: { type: 'boolean', default: false },
      interval: { type: 'string', default: '5' },
      seconds: { type: 'string', default: '10' },
    },
  });
  const jobs = Number(values.jobs);
  const agentCount = Number(values.agents);
  const profile = values['cpu-prof'];
  const receiver = values.webhook ? await startReceiver() : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (values.postgres) env.BENCH_POSTGRES = values.postgres;
  if (receiver) env.BENCH_WEBHOOK_URL = receiver.url;
  const profileArgs = (name: string) =>
    profile
      ? ['--cpu-prof', `--cpu-prof-dir=${profile}`, `--cpu-prof-name=${name}.cpuprofile`]
      : [];
  // Both servers run their TypeScript as Node runs it (type stripping, as `npm start`
  // does), not through this script's tsx loader, whose transform adds a helper call to
  // every function it creates.
  const serveFrom = async (script: string, profileName: string) => {
    const child = fork(script, ['--serve'], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      execArgv: profileArgs(profileName),
      env,
    });
    const ready = await new Promise<Ready>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Ready));
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    return { child, ready };
  };
  const { child, ready } = await serveFrom(fileURLToPath(import.meta.url), 'shopdesk-queue');
  const targets: QueueTarget[] = [{ name: 'ShopDesk', ...ready, pid: child.pid }];
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-queue-'));
  let baseline: RunningServer | undefined;
  let other: ChildProcess | undefined;
  if (values.against) {
    const script = join(values.against, 'bench', 'printing.ts');
    const against = await serveFrom(script, 'shopdesk-against');
    other = against.child;
    targets.push({ name: 'ShopDesk, --against', ...against.ready, pid: other.pid });
  } else if (!values['no-baseline']) {
    const agentToken = randomBytes(24).toString('hex');
    const integratorToken = randomBytes(24).toString('hex');
    baseline = await startServer(
      'Fastify queue',
      process.execPath,
      [
        ...profileArgs('fastify-queue'),
        fileURLToPath(new URL('./servers/fastify-queue.ts', import.meta.url)),
        '--db',
        join(dir, 'fastify-queue.sqlite'),
      ],
      { BENCH_AGENT_TOKEN: agentToken, BENCH_INTEGRATOR_TOKEN: integratorToken },
    );
    targets.push({
      name: baseline.name,
      url: `${baseline.origin}/api/v1`,
      agentToken,
      integratorToken,
      pid: baseline.child.pid,
    });
  }
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 60_000, pipelining: 1 });
  const clients = targets.map((target) => new QueueClient(target, dispatcher));
  try {
    if (values.steady) {
      await steadyRounds(clients, {
        rounds: Number(values.rounds),
        waiters: Number(values.waiters),
        intervalMs: Number(values.interval),
        seconds: Number(values.seconds),
      });
      return;
    }
    // Rounds alternate the servers, so that a busy moment of the machine hits them alike.
    const runs = new Map<string, Throughput[]>();
    const warmup = Number(values.warmup);
    for (let round = -warmup; round < Number(values.rounds); round++) {
      for (const client of clients) {
        const result = await throughput(client, `throughput-${round}`, jobs, agentCount);
        const { name } = client.target;
        console.log(
          `claim+confirm on ${name}, ${round < 0 ? 'warm-up (not counted)' : `round ${round + 1}`}: ${jobs} jobs, ${agentCount} agents on one route: ` +
            `${fixed(result.jobsPerSecond)} jobs/s (${result.seconds.toFixed(2)} s), ` +
            `server CPU ${result.cpuUsPerJob === null ? '—' : fixed(result.cpuUsPerJob)} µs/job, ` +
            `creates ${fixed(result.createsPerSecond)}/s at ${result.createCpuUs === null ? '—' : fixed(result.createCpuUs)} µs of server CPU each, ` +
            `load generator ${Math.round(result.loadCpuShare * 100)} % of a core, ` +
            `claimed ${result.claimed}/${jobs}, duplicates ${result.duplicates}`,
        );
        if (result.duplicates > 0 || result.claimed !== jobs) process.exitCode = 1;
        if (round >= 0) runs.set(name, [...(runs.get(name) ?? []), result]);
      }
    }
    const latencies = new Map<string, Latency>();
    for (const client of clients) {
      const result = await latency(
        client,
        'latency',
        Number(values.waiters),
        Number(values.samples),
      );
      console.log(
        `enqueue→claim on ${client.target.name} with ${values.waiters} agents long-polling: ` +
          `p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, max ${result.max.toFixed(2)} ms ` +
          `over ${result.samples} jobs, duplicates ${result.duplicates}`,
      );
      if (result.duplicates > 0) process.exitCode = 1;
      latencies.set(client.target.name, result);
    }
    console.log(
      `\n${summary(runs, latencies)}\n(load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')})`,
    );
    if (receiver) {
      // Let the dispatcher finish what is in flight before counting.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      console.log(`webhook deliveries received meanwhile: ${receiver.count()}`);
    }
  } finally {
    receiver?.close();
    await dispatcher.close();
    await baseline?.stop();
    const children = other ? [child, other] : [child];
    const exited = children.map((c) => new Promise((resolve) => c.once('exit', resolve)));
    for (const c of children) c.disconnect();
    // The profile is written as the child exits.
    if (profile) await Promise.all(exited);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `--steady`: per round and server (alternating), `waiters` fresh agents long-polling a
 * fresh route and a job created every `intervalMs` for `seconds` (after a second of
 * warm-up); then the median of the rounds' p50 and p99 per server.
 */
async function steadyRounds(
  clients: QueueClient[],
  options: { rounds: number; waiters: number; intervalMs: number; seconds: number },
): Promise<void> {
  const results = new Map<string, Array<SteadyResult & { cpuUs: number }>>();
  // A first round on each, not counted: the JIT and the caches warm up alike.
  for (let round = -1; round < options.rounds; round++) {
    for (const client of clients) {
      const party = await steadyPartyOf(client, `steady-${round + 1}`, options.waiters);
      const cpuBefore = cpuSecondsOf(client.target.pid) ?? 0;
      const run = await steady(party, {
        intervalMs: options.intervalMs,
        seconds: options.seconds,
        warmupSeconds: 1,
      });
      const cpu = (cpuSecondsOf(client.target.pid) ?? 0) - cpuBefore;
      const result = { ...run, cpuUs: (cpu * 1e6) / run.created };
      const { name } = client.target;
      const label = round < 0 ? 'warm-up (not counted)' : `round ${round + 1}`;
      console.log(
        `${steadyLine(`${label}, ${name}`, result)}; ${fixed(result.cpuUs)} µs of the server's CPU a job (load average ${loadavg()[0]!.toFixed(1)})`,
      );
      if (result.duplicates > 0) process.exitCode = 1;
      if (round >= 0) results.set(name, [...(results.get(name) ?? []), result]);
    }
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)]!;
  };
  console.log(
    `\nSteady: ${options.waiters} agents long-polling one route, a job every ${options.intervalMs} ms, ` +
      `${options.rounds} rounds of ${options.seconds} s (medians of the rounds)\n`,
  );
  console.log(
    formatTable(
      ['server', 'POST→claim p50 ms', 'p99 ms', 'jobs/s', 'server CPU µs a job'],
      [...results].map(([name, list]) => [
        name,
        median(list.map((r) => r.p50)).toFixed(2),
        median(list.map((r) => r.p99)).toFixed(2),
        fixed(median(list.map((r) => r.jobsPerSecond))),
        fixed(median(list.map((r) => r.cpuUs))),
      ]),
    ),
  );
  console.log(
    `(load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
}

/** The targets beside ShopDesk's figures: the mean of the rounds, and the ratios. */
function summary(runs: Map<string, Throughput[]>, latencies: Map<string, Latency>): string {
  const mean = (list: Throughput[], pick: (t: Throughput) => number | null) => {
    const values = list.map(pick).filter((v): v is number => v !== null);
    return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
  };
  const ours = runs.get('ShopDesk')!;
  const oursRate = mean(ours, (t) => t.jobsPerSecond)!;
  const oursCpu = mean(ours, (t) => t.cpuUsPerJob);
  const rows = [...runs].map(([name, list]) => {
    const rate = mean(list, (t) => t.jobsPerSecond)!;
    const cpu = mean(list, (t) => t.cpuUsPerJob);
    const creates = mean(list, (t) => t.createsPerSecond)!;
    const createCpu = mean(list, (t) => t.createCpuUs);
    const waited = latencies.get(name);
    return [
      name,
      fixed(rate),
      cpu === null ? '—' : fixed(cpu),
      String(list.reduce((sum, t) => sum + t.duplicates, 0)),
      waited ? waited.p50.toFixed(2) : '—',
      waited ? waited.p99.toFixed(2) : '—',
      fixed(creates),
      createCpu === null ? '—' : fixed(createCpu),
      name === 'ShopDesk' ? '' : ratio(oursRate, rate),
      name === 'ShopDesk' || cpu === null || oursCpu === null ? '' : ratio(cpu, oursCpu),
    ];
  });
  return [
    'Targets: ShopDesk ≥ 3,000 jobs/s, ≥ 2x the Fastify queue, 0 duplicates, enqueue→claim p99 ≤ 5 ms.',
    '',
    formatTable(
      [
        'server',
        'jobs/s',
        'CPU µs/job',
        'duplicates',
        'claim p50 ms',
        'claim p99 ms',
        'creates/s',
        'create CPU µs',
        'ShopDesk ÷ this',
        "CPU ÷ ShopDesk's",
      ],
      rows,
    ),
  ].join('\n');
}

/** A webhook receiver that answers 204 at once and counts. */
async function startReceiver() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    count: () => count,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await run();
}
