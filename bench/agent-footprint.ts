/**
 * The print agent's footprint, measured (not asserted): idle CPU while long-polling, RSS after
 * 1,000 jobs, and jobs per second through `folder:`. The agent runs in its own process
 * (`runAgentCommand`, as `shopdesk agent` would); the print-queue stub of the tests plays
 * the server in this one. Linux only (reads /proc).
 *
 *   node bench/agent-footprint.ts [--jobs 1000] [--idle-seconds 20]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPrintQueueStub } from '../test/agent/helpers/print-queue-stub.ts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '1000' },
    'idle-seconds': { type: 'string', default: '20' },
  },
});
const jobCount = Number(values.jobs);
const idleSeconds = Number(values['idle-seconds']);
const ticksPerSecond = 100; // USER_HZ on Linux

async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of /proc/PID/stat (proc(5)); here offset by 3.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

async function rssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stub = await startPrintQueueStub({
  // What a production server would say: long waits, a heartbeat every 30 s.
  intervals: { long_poll_wait_seconds: 25, heartbeat_seconds: 30, lease_seconds: 120 },
});
const work = await mkdtemp(join(tmpdir(), 'shopdesk-agent-bench-'));
const out = join(work, 'out');
const script = `
  import { runAgentCommand } from ${JSON.stringify(join(import.meta.dirname, '../agent/core/cli.ts'))};
  const [server, token, route, stateDir] = process.argv.slice(1);
  process.exitCode = await runAgentCommand({ server, token, route: [route], stateDir, stdout: { write() { return true; } } });
`;
const agent = spawn(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    script,
    stub.url,
    stub.token,
    `bench=folder:${out}`,
    join(work, 'state'),
  ],
  { stdio: ['ignore', 'ignore', 'inherit'] },
);
const pid = agent.pid!;

try {
  // Let it start, register and settle into its first long-poll.
  while (!stub.requests.some((request) => request.path === '/printing/jobs/next')) await wait(50);
  await wait(2000);
  const rssIdleStart = await rssMiB(pid);
  const cpuBefore = await cpuSeconds(pid);
  await wait(idleSeconds * 1000);
  const idleCpu = (await cpuSeconds(pid)) - cpuBefore;

  const started = performance.now();
  for (let index = 0; index < jobCount; index++) {
    stub.createJob({
      route: 'bench',
      title: `receipt ${index}`,
      content: `%PDF-1.4 receipt ${index}\n`.repeat(40),
    });
  }
  const cpuBeforeJobs = await cpuSeconds(pid);
  let printed = 0;
  while (printed < jobCount) {
    await wait(20);
    printed = (await readdir(out).catch(() => [])).length;
  }
  const seconds = (performance.now() - started) / 1000;
  const jobsCpu = (await cpuSeconds(pid)) - cpuBeforeJobs;
  // Reports are delivered after the files appear: wait for the last confirm before measuring.
  while (stub.requests.filter((request) => request.path.endsWith('/confirm')).length < jobCount)
    await wait(20);
  const rssAfter = await rssMiB(pid);

  console.log(`agent footprint (node ${process.version}, ${jobCount} jobs, folder:)`);
  console.log(`  RSS idle after start          ${rssIdleStart.toFixed(1)} MiB`);
  console.log(
    `  CPU idle while long-polling   ${((idleCpu / idleSeconds) * 100).toFixed(2)} % of one core over ${idleSeconds} s`,
  );
  console.log(
    `  jobs/s through folder:        ${(jobCount / seconds).toFixed(0)} (${seconds.toFixed(2)} s for ${jobCount}, ${jobsCpu.toFixed(2)} CPU s)`,
  );
  console.log(`  RSS after ${jobCount} jobs            ${rssAfter.toFixed(1)} MiB`);
} finally {
  agent.kill('SIGTERM');
  await new Promise((resolve) => agent.once('exit', resolve));
  await stub.close();
  await rm(work, { recursive: true, force: true });
}
