/**
 * The print agent's footprint, measured (not asserted): RSS idle, idle CPU while long-polling,
 * RSS after 1,000 jobs, and jobs per second through `folder:`. Each variant runs the agent in
 * its own process, one after the other, against its own real server in the bench's process
 * (the tests' `startRealAgentTestServer`, on a fresh SQLite file). Linux only (reads /proc). Variants (docs/agent.md,
 * "Footprint"):
 *   sources  agent/core/cli.ts straight from the TypeScript sources (Node strips the types):
 *            how the agent ran before it was bundled, the baseline
 *   bundle   `shopdesk agent` as a user starts it: bin/shopdesk.js, which becomes `node
 *            <flags> agent.mjs`, the esbuild bundle of agent/headless/ (built on first use)
 *
 *   node bench/agent-footprint.ts [--jobs 1000] [--idle-seconds 20] [--variants sources,bundle]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startRealAgentTestServer } from '../test/helpers/real-agent-server.ts';
import { cpuSecondsOf, rssMiBOf } from './lib/spawn.ts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000' },
    'idle-seconds': { type: 'string', default: '20' },
    variants: { type: 'string', default: 'sources,bundle' },
  },
});
const jobCount = Number(values.jobs);
const idleSeconds = Number(values['idle-seconds']);
const root = join(import.meta.dirname, '..');
const targets = { idleMiB: 80, afterJobsMiB: 100 };

interface Launch {
  server: string;
  token: string;
  route: string;
  stateDir: string;
}

const variants: Record<string, (launch: Launch) => ChildProcess> = {
  sources: ({ server, token, route, stateDir }) => {
    const script = `
      import { runAgentCommand } from ${JSON.stringify(join(root, 'agent/core/cli.ts'))};
      const [server, token, route, stateDir] = process.argv.slice(1);
      process.exitCode = await runAgentCommand({ server, token, route: [route], stateDir });
    `;
    return spawn(
      process.execPath,
      ['--input-type=module', '-e', script, server, token, route, stateDir],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  },
  bundle: ({ server, token, route, stateDir }) =>
    spawn(
      process.execPath,
      [
        join(root, 'bin/shopdesk.js'),
        'agent',
        '--server',
        server,
        '--route',
        route,
        '--state-dir',
        stateDir,
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...process.env, SHOPDESK_AGENT_TOKEN: token },
      },
    ),
};

const cpuSeconds = async (pid: number): Promise<number> => cpuSecondsOf(pid) ?? 0;
const rssMiB = async (pid: number): Promise<number> => rssMiBOf(pid) ?? 0;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Footprint {
  rssIdle: number;
  idleCpuPercent: number;
  jobsPerSecond: number;
  jobsCpuSeconds: number;
  rssAfter: number;
}

async function measureVariant(start: (launch: Launch) => ChildProcess): Promise<Footprint> {
  // What a production server would say: long waits, a heartbeat every 30 s.
  const server = await startRealAgentTestServer({
    longPollWaitSeconds: 25,
    heartbeatSeconds: 30,
    leaseSeconds: 120,
  });
  const work = await mkdtemp(join(tmpdir(), 'shopdesk-agent-bench-'));
  const out = join(work, 'out');
  const agent = start({
    server: server.url,
    token: server.token,
    route: `bench=folder:${out}`,
    stateDir: join(work, 'state'),
  });
  const exited = new Promise((resolve) => agent.once('exit', resolve));
  // Its start and stop lines stay out of the bench's output; they are shown if it fails.
  let stderr = '';
  agent.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const pid = agent.pid!;
  try {
    // Let it start, register and settle into its first long-poll.
    while (!server.agentsWaiting()) {
      if (agent.exitCode !== null) {
        throw new Error(`the agent exited with ${agent.exitCode}: ${stderr}`);
      }
      await wait(50);
    }
    await wait(2000);
    const rssIdle = await rssMiB(pid);
    const cpuBefore = await cpuSeconds(pid);
    await wait(idleSeconds * 1000);
    const idleCpu = (await cpuSeconds(pid)) - cpuBefore;

    const started = performance.now();
    const ids: number[] = [];
    for (let index = 0; index < jobCount; index++) {
      const job = await server.createJob({
        route: 'bench',
        title: `receipt ${index}`,
        content_type: 'application/pdf',
        content: `%PDF-1.4 receipt ${index}\n`.repeat(40),
      });
      ids.push(job.id);
    }
    const cpuBeforeJobs = await cpuSeconds(pid);
    let printed = 0;
    while (printed < jobCount) {
      await wait(20);
      printed = (await readdir(out).catch(() => [])).length;
    }
    const seconds = (performance.now() - started) / 1000;
    const jobsCpuSeconds = (await cpuSeconds(pid)) - cpuBeforeJobs;
    // Reports are delivered after the files appear: wait for the last confirm before measuring.
    for (const id of ids) while ((await server.job(id)).status !== 'printed') await wait(20);
    return {
      rssIdle,
      idleCpuPercent: (idleCpu / idleSeconds) * 100,
      jobsPerSecond: jobCount / seconds,
      jobsCpuSeconds,
      rssAfter: await rssMiB(pid),
    };
  } finally {
    agent.kill('SIGTERM');
    await exited;
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}

const results: Array<[string, Footprint]> = [];
for (const name of values.variants.split(',')) {
  const start = variants[name];
  if (!start) throw new Error(`unknown variant ${name}; known: ${Object.keys(variants)}`);
  results.push([name, await measureVariant(start)]);
}

const pad = (text: string, width: number) => text.padEnd(width);
console.log(
  `agent footprint (node ${process.version}, folder:, idle ${idleSeconds} s, ${jobCount} jobs; target: RSS ≤ ${targets.idleMiB} MiB idle, ≤ ${targets.afterJobsMiB} MiB after ${jobCount} jobs)`,
);
console.log(
  `  ${pad('variant', 9)}${pad('RSS idle', 11)}${pad('CPU idle', 11)}${pad(`RSS after ${jobCount}`, 16)}${pad('jobs/s', 8)}CPU s for the jobs`,
);
for (const [name, result] of results) {
  console.log(
    `  ${pad(name, 9)}${pad(`${result.rssIdle.toFixed(1)} MiB`, 11)}${pad(`${result.idleCpuPercent.toFixed(2)} %`, 11)}${pad(`${result.rssAfter.toFixed(1)} MiB`, 16)}${pad(result.jobsPerSecond.toFixed(0), 8)}${result.jobsCpuSeconds.toFixed(2)}`,
  );
}
const [baseName, base] = results[0]!;
for (const [name, result] of results.slice(1)) {
  const met = result.rssIdle <= targets.idleMiB && result.rssAfter <= targets.afterJobsMiB;
  console.log(
    `  ${name} ÷ ${baseName}: RSS idle ${(result.rssIdle / base.rssIdle).toFixed(2)}×, after the jobs ${(result.rssAfter / base.rssAfter).toFixed(2)}× — target ${met ? 'met' : 'NOT met'}`,
  );
}
