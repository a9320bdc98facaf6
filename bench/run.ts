/**
 * `npm run bench`: ShopDesk against the Fastify + better-sqlite3 baseline and a bare
 * node:http ceiling, side by side in one run, with the floors under two targets: for the
 * read, node:http running only ShopDesk's SQL (servers/floor.ts); for an Idempotency-Key,
 * the key's row on raw better-sqlite3 (lib/key-floor.ts). Each server runs in its own process; this
 * process only generates load (autocannon). Scenarios run one server at a time, each with
 * a warm-up first, in alternating rounds. Settings: BENCH_SECONDS (default 3), BENCH_WARMUP (3),
 * BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (10), BENCH_ONLY=TEXT (scenarios whose name holds it),
 * BENCH_CPU_PROF=DIR (profile the servers), BENCH_NO_CEILING=1 (while tuning),
 * BENCH_CONSOLE=0 (skip the web console's bench, as BENCH_ONLY does), BENCH_TEMPLATES=0 (skip the
 * templates' bench, as BENCH_ONLY does),
 * BENCH_PRINTING=0 (skip the print-queue bench, as BENCH_ONLY does), BENCH_WEBHOOKS=0 (skip
 * the webhook bench, as BENCH_ONLY does), BENCH_AGENT=0 (skip the agent footprint, as BENCH_ONLY
 * does); BENCH_ONLY=Idempotency-Key runs only the writes
 * without and with an Idempotency-Key.
 * `npm run bench -- --postgres [ADMIN_URL]` runs only the multi-instance PostgreSQL print-queue
 * bench (see postgresBench below; BENCH_PG_JOBS, BENCH_PG_SAMPLES, BENCH_PG_BASELINE=0).
 */
import { deepStrictEqual } from 'node:assert';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogueScenarios } from './lib/catalogue.ts';
import { keyCostTable } from './lib/idempotency.ts';
import { keyRowFloor } from './lib/key-floor.ts';
import {
  averageOf,
  type LoadSettings,
  type Measurement,
  measure,
  type Scenario,
} from './lib/load.ts';
import { type Seed, sampleCustomer, seedDatabases } from './lib/seed.ts';
import type { RunningServer } from './lib/spawn.ts';
import { fixed, formatTable, ratio } from './lib/table.ts';
import {
  floorName,
  startCeiling,
  startFastify,
  startFloor,
  startShopDesk,
} from './servers/index.ts';

const settings: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 3),
};
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const cpu = (m: Measurement) => (m.cpuUsPerRequest === null ? '—' : fixed(m.cpuUsPerRequest));

interface Row {
  scenario: string;
  results: Record<string, Measurement>;
}

async function fetchJson(url: string, init: RequestInit = {}) {
  const answer = await fetch(url, init);
  const text = await answer.text();
  return { status: answer.status, bytes: Buffer.byteLength(text), body: JSON.parse(text) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-'));
  const servers: RunningServer[] = [];
  try {
    const oursDb = join(dir, 'shopdesk.sqlite');
    const fastifyDb = join(dir, 'fastify.sqlite');
    const sameSqlDb = join(dir, 'fastify-same-sql.sqlite');
    const floorDb = join(dir, 'floor.sqlite');
    const seed = await seedDatabases([oursDb, fastifyDb, sameSqlDb, floorDb]);
    const ours = await startShopDesk(oursDb);
    servers.push(ours);
    const fastify = await startFastify(fastifyDb);
    servers.push(fastify);

    const auth = { authorization: `Bearer ${seed.token}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const getPath = `/api/v1/customers/${seed.customerId}`;

    // Same work, same answer: both servers must return the identical body before timing.
    const oursGet = await fetchJson(ours.origin + getPath, { headers: auth });
    const fastifyGet = await fetchJson(fastify.origin + getPath, { headers: auth });
    if (oursGet.status !== 200 || fastifyGet.status !== 200) {
      throw new Error(`GET answered ${oursGet.status} / ${fastifyGet.status}`);
    }
    deepStrictEqual(fastifyGet.body, oursGet.body, 'the baseline answers a different body');
    const probe = (origin: string, code: string) =>
      fetchJson(`${origin}/api/v1/customers`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(sampleCustomer(code)),
      });
    const oursPost = await probe(ours.origin, 'PROBE-1');
    const fastifyPost = await probe(fastify.origin, 'PROBE-1');
    if (oursPost.status !== 201 || fastifyPost.status !== 201) {
      throw new Error(`POST answered ${oursPost.status} / ${fastifyPost.status}`);
    }
    const { created_at: _a, updated_at: _b, ...oursShape } = oursPost.body.data;
    const { created_at: _c, updated_at: _d, ...fastifyShape } = fastifyPost.body.data;
    deepStrictEqual(fastifyShape, oursShape, 'the baseline creates a different record');

    const sameSql = await startFastify(sameSqlDb, true);
    servers.push(sameSql);
    const sameSqlGet = await fetchJson(sameSql.origin + getPath, { headers: auth });
    deepStrictEqual(
      sameSqlGet.body,
      oursGet.body,
      'the same-SQL baseline answers a different body',
    );
    await probe(sameSql.origin, 'PROBE-1');

    if (process.env.BENCH_NO_CEILING !== '1') {
      servers.push(await startCeiling({ get: oursGet.bytes, post: oursPost.bytes, put: 32 }));
    }
    // The read's floor serves the read only: bare node:http with ShopDesk's SQL (floor.ts).
    const floor = await startFloor(floorDb, seed.companyId);
    servers.push(floor);
    const floorGet = await fetchJson(floor.origin + getPath);
    deepStrictEqual(floorGet.body, oursGet.body, "the read's floor answers a different body");

    let serial = 0;
    const scenarios: Array<{ name: string; scenario: Scenario }> = [
      {
        name: 'GET /customers/{id}',
        scenario: { method: 'GET', path: getPath, headers: auth },
      },
      {
        name: 'POST /customers',
        scenario: {
          method: 'POST',
          path: '/api/v1/customers',
          headers: json,
          // A unique code per request: the uniqueness check runs, as in real use.
          body: () => JSON.stringify(sampleCustomer(`B-${++serial}`)),
        },
      },
    ];

    const rows: Row[] = [];
    const only = process.env.BENCH_ONLY;
    for (const { name, scenario } of scenarios) {
      if (only && !name.includes(only)) continue;
      const runs: Record<string, Measurement[]> = {};
      // Rounds alternate the servers, so a slow moment of the machine hits them all alike.
      const measured = servers.filter((server) => server !== floor || scenario.method === 'GET');
      for (let round = 0; round < rounds; round++) {
        for (const server of measured) {
          // Warm-up once: later rounds find the JIT and the caches already hot.
          const warmup = round === 0 ? settings.warmupSeconds : 0;
          const result = await measure(server.origin, server.child.pid, scenario, {
            ...settings,
            warmupSeconds: warmup,
          });
          if (result.failures > 0) {
            throw new Error(`${name} on ${server.name}: ${result.failures} failed requests`);
          }
          process.stderr.write(
            `  ${name} on ${server.name}, round ${round + 1}: ${fixed(result.requestsPerSecond)} req/s, ${cpu(result)} µs CPU/req\n`,
          );
          runs[server.name] = [...(runs[server.name] ?? []), result];
        }
      }
      const results: Record<string, Measurement> = {};
      for (const [server, measured] of Object.entries(runs)) results[server] = averageOf(measured);
      rows.push({ scenario: name, results });
    }

    console.log(
      `\nShopDesk bench — ${cpus().length} CPUs (${cpus()[0]?.model.trim()}), Node ${process.version}, ` +
        `${settings.connections} connections, ${settings.warmupSeconds} s warm-up, then ${rounds} × ${settings.seconds} s per server (mean); ` +
        `load average at the end ${loadavg()
          .map((load) => load.toFixed(1))
          .join(' ')}\n`,
    );
    console.log(
      formatTable(
        ['scenario', 'server', 'req/s', 'p99 ms', 'CPU µs/req', 'ShopDesk ÷ this (req/s)'],
        rows.flatMap(({ scenario, results }) => {
          const ours = results.ShopDesk!;
          return Object.entries(results).map(([server, result]) => [
            scenario,
            server,
            fixed(result.requestsPerSecond),
            fixed(result.p99Ms, 1),
            cpu(result),
            server === 'ShopDesk' ? '' : ratio(ours.requestsPerSecond, result.requestsPerSecond),
          ]);
        }),
        2,
      ),
    );

    const targets = customerTargets(rows);
    if (targets.length > 0)
      console.log(`\nTargets, in this run (docs/benchmarks.md):\n\n${targets.join('\n')}`);

    if (!only || 'Idempotency-Key'.includes(only)) {
      const { table, measured } = await keyCostTable(ours, seed, settings, rounds);
      console.log(
        `\nIdempotency-Key, ShopDesk alone: the same writes without and with a fresh key each (target: ≤ 10 % fewer req/s):\n\n${table}`,
      );
      const creates = measured.get('POST /customers');
      if (creates) console.log(`\n${keyFloorLine(floorDb, seed, oursPost.bytes, creates.without)}`);
    }

    // Products and stock: ShopDesk alone, one round each after a warm-up.
    const catalogue: Array<{ name: string; connections: number; result: Measurement }> = [];
    for (const { name, scenario, connections } of catalogueScenarios(seed, seed.token)) {
      if (only && !name.includes(only)) continue;
      const result = await measure(ours.origin, ours.child.pid, scenario, {
        ...settings,
        connections,
        seconds: settings.seconds * 2,
      });
      if (result.failures > 0) throw new Error(`${name}: ${result.failures} failed requests`);
      process.stderr.write(`  ${name} on ShopDesk: ${fixed(result.requestsPerSecond)} req/s\n`);
      catalogue.push({ name, connections, result });
    }
    if (catalogue.length > 0) {
      console.log('\nProducts and stock, ShopDesk alone (no baseline):\n');
      console.log(
        formatTable(
          ['scenario', 'connections', 'req/s', 'mean ms', 'p50 ms', 'p99 ms', 'CPU µs/req'],
          catalogue.map(({ name, connections, result }) => [
            name,
            String(connections),
            fixed(result.requestsPerSecond, 1),
            fixed(result.meanMs, 1),
            fixed(result.p50Ms, 1),
            fixed(result.p99Ms, 1),
            cpu(result),
          ]),
        ),
      );
      const bulk = catalogue.find(({ name }) => name.startsWith('PUT /inventory/stock/bulk'));
      if (bulk) {
        console.log(
          `\nTarget: 1,000-item bulk stock update ≤ 25 ms mean at one connection: ${fixed(bulk.result.meanMs, 1)} ms ${bulk.result.meanMs <= 25 ? 'met' : 'NOT met'} (CPU ${cpu(bulk.result)} µs a request)`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
  await printQueueBench();
  await webhookBench();
  await childBench('./agent-footprint.ts', ['--idle-seconds', '10'], 'BENCH_AGENT', 'Print agent');
  await childBench('./console.ts', [], 'BENCH_CONSOLE', 'Web console');
  await childBench('./templates.ts', [], 'BENCH_TEMPLATES', 'Templates');
}

/**
 * What SQLite alone charges a keyed create (key-floor.ts, on a copy of `seeded`), beside
 * what the ≤ 10 % target leaves a key in this run: a ninth of the unkeyed request's CPU (a
 * request 1/0.9 times as long is 10 % fewer requests/s).
 */
function keyFloorLine(
  seeded: string,
  seed: Seed,
  answerBytes: number,
  unkeyed: Measurement,
): string {
  const file = join(dirname(seeded), 'key-floor.sqlite');
  copyFileSync(seeded, file);
  const floor = keyRowFloor(file, seed.companyId, (n) => sampleCustomer(`F-${n}`), answerBytes, {
    creates: 20_000,
    groupSize: 10,
    rounds: 3,
  });
  const row = floor.withKey - floor.withoutKey;
  const line =
    `The key's floor: ShopDesk's create SQL on raw better-sqlite3, groups of 10, ${fixed(floor.withoutKey, 1)} µs a create without a key and ${fixed(floor.withKey, 1)} µs with its row (${answerBytes}-byte answer, random key): ` +
    `+${fixed(row, 1)} µs in SQLite alone.`;
  const cpu = unkeyed.cpuUsPerRequest;
  if (cpu === null) return line;
  const allowed = cpu / 9;
  return `${line} ≤ 10 % fewer req/s leaves a key ${fixed(allowed, 1)} µs of CPU in this run (unkeyed POST /customers: ${fixed(cpu, 0)} µs): the row alone is ${fixed(row / allowed, 1)}x that.`;
}

/** ShopDesk against "Fastify, same SQL": the HTTP core's targets, with what this run met. */
function customerTargets(rows: Row[]): string[] {
  const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
  return rows.flatMap(({ scenario, results }) => {
    const ours = results.ShopDesk;
    const base = results['Fastify, same SQL'];
    if (!ours || !base) return [];
    const times = ours.requestsPerSecond / base.requestsPerSecond;
    const wanted = scenario.startsWith('GET') ? 1.25 : 1.0;
    const lines = [
      `- ${scenario}: ShopDesk ÷ Fastify, same SQL ${times.toFixed(2)}x req/s (target ≥ ${wanted.toFixed(2)}x: ${verdict(times >= wanted)}); ` +
        `p99 ${fixed(ours.p99Ms, 1)} against ${fixed(base.p99Ms, 1)} ms (target no worse: ${verdict(ours.p99Ms <= base.p99Ms)})`,
    ];
    const floor = results[floorName];
    if (floor) {
      const most = floor.requestsPerSecond / base.requestsPerSecond;
      lines.push(
        `  the floor (${floorName}, nothing but that SQL): ${most.toFixed(2)}x Fastify, same SQL; ` +
          `${wanted.toFixed(2)}x asks ShopDesk for ${((wanted / most) * 100).toFixed(0)} % of the floor's req/s (it has ${((ours.requestsPerSecond / floor.requestsPerSecond) * 100).toFixed(0)} %)`,
      );
    }
    if (
      scenario.startsWith('GET') &&
      ours.cpuUsPerRequest !== null &&
      base.cpuUsPerRequest !== null
    ) {
      lines.push(
        `  CPU ${fixed(ours.cpuUsPerRequest)} against ${fixed(base.cpuUsPerRequest)} µs a request (target lower: ${verdict(ours.cpuUsPerRequest < base.cpuUsPerRequest)})`,
      );
    }
    return lines;
  });
}

/**
 * The print queue's own bench (bench/printing.ts: claim+confirm throughput with zero
 * duplicates, enqueue→claim latency), at a size that keeps the whole run near 4 minutes:
 * after the warm-up, three rounds of 4,000 jobs (rounds of 2,000 lasted 0.4–0.5 s, and
 * one slow moment moved the ratio by a tenth). It starts its own server; the customers'
 * servers are stopped by then.
 */
async function printQueueBench(): Promise<void> {
  const script = fileURLToPath(new URL('./printing.ts', import.meta.url));
  if (process.env.BENCH_PRINTING === '0' || process.env.BENCH_ONLY || !existsSync(script)) return;
  console.log(
    '\nPrint queue, beside the Fastify queue baseline (bench/printing.ts --jobs 4000 --rounds 3 --samples 150):\n',
  );
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, '--jobs', '4000', '--rounds', '3', '--samples', '150'],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/printing.ts exited with ${code}`);
  // The wake-up under a steady load: 50 agents, a job every 5 ms, against the Fastify queue.
  console.log('\nPrint queue, steady (bench/printing.ts --steady --rounds 3):\n');
  const steady = spawn(process.execPath, ['--import', 'tsx', script, '--steady', '--rounds', '3'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const steadyCode = await new Promise<number | null>((resolve) => steady.once('exit', resolve));
  if (steadyCode !== 0) throw new Error(`bench/printing.ts --steady exited with ${steadyCode}`);
}

/**
 * The webhooks' own bench (bench/webhooks.ts: events/s delivered to a local receiver, and
 * the delay from a change's commit to its delivery). It starts its own server.
 */
async function webhookBench(): Promise<void> {
  const script = fileURLToPath(new URL('./webhooks.ts', import.meta.url));
  if (process.env.BENCH_WEBHOOKS === '0' || process.env.BENCH_ONLY || !existsSync(script)) return;
  console.log('\nWebhooks (bench/webhooks.ts --events 5000 --samples 300):\n');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', script, '--events', '5000', '--samples', '300'],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/webhooks.ts exited with ${code}`);
}

/**
 * `npm run bench -- --postgres [ADMIN_URL]`: only the print queue over several instances on
 * one PostgreSQL (bench/printing-postgres.ts: 3 instances, 50 agents, 10,000 jobs, and
 * graphile-worker beside it). ADMIN_URL names the server and a database to connect to while
 * creating and dropping the bench's fresh one (default: the tests'
 * postgres://postgres@127.0.0.1:5432/test).
 */
async function postgresBench(): Promise<void> {
  const { defaultAdminUrl, multiInstanceBench } = await import('./printing-postgres.ts');
  const at = process.argv.indexOf('--postgres');
  const given = process.argv[at + 1];
  const ok = await multiInstanceBench({
    adminUrl: given && !given.startsWith('--') ? given : defaultAdminUrl,
    instances: 3,
    agents: 50,
    jobs: Number(process.env.BENCH_PG_JOBS ?? 10_000),
    samples: Number(process.env.BENCH_PG_SAMPLES ?? 300),
    baseline: process.env.BENCH_PG_BASELINE !== '0',
  });
  // The wake-up under a steady load (target: p99 ≤ 20 ms), beside the checkout named by
  // BENCH_AGAINST (a worktree of the commit before) when given.
  const { steadyBench } = await import('./lib/pg-steady.ts');
  const steady = await steadyBench({
    adminUrl: given && !given.startsWith('--') ? given : defaultAdminUrl,
    instances: 3,
    agents: 50,
    rounds: 3,
    intervalMs: 5,
    seconds: 10,
    ...(process.env.BENCH_AGAINST && { against: process.env.BENCH_AGAINST }),
  });
  if (!ok || !steady) process.exitCode = 1;
}

/**
 * A bench of its own, run as a child with the machine to itself; `skip` is its BENCH_… = 0
 * switch (BENCH_ONLY skips it too).
 */
async function childBench(file: string, args: string[], skip: string, title: string) {
  const script = fileURLToPath(new URL(file, import.meta.url));
  if (process.env[skip] === '0' || process.env.BENCH_ONLY || !existsSync(script)) return;
  console.log(`\n${title} (bench/${file.slice(2)} ${args.join(' ')}):\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/${file.slice(2)} exited with ${code}`);
}

if (process.argv.includes('--postgres')) {
  await postgresBench();
} else {
  await main();
}
