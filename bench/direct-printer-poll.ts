/**
 * What a printer reached directly costs the idle agent (docs/agent.md, "Printers reached
 * directly"): its state is read every 5 s (the printer watch), a TCP connection and an ESC/POS
 * status request each time. Measured, side by side in one run, on the agent as a process
 * (agent/core/cli.ts from the sources), idle against its own real server in the bench's
 * process (the tests' `startRealAgentTestServer`, a fresh SQLite file):
 *
 *   folder   one route on `folder:DIR`: nothing to read but a directory (the baseline)
 *   socket   one route on `socket://127.0.0.1:PORT` with an escpos profile, to the ESC/POS
 *            simulator of test/helpers/printer-simulators/ in the bench's process
 *
 * The agent's CPU (utime + stime from /proc/PID/stat) over the idle window, its RSS at the
 * end, and the status reads the simulator answered. Target: the socket route costs at most
 * 1 % of a core and 5 MiB more than the folder route. Linux only (reads /proc).
 *
 *   node bench/direct-printer-poll.ts [--idle-seconds 60] [--rounds 2]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EscposSimulator } from '../test/helpers/printer-simulators/escpos.ts';
import { startRealAgentTestServer } from '../test/helpers/real-agent-server.ts';
import { cpuSecondsOf, rssMiBOf } from './lib/spawn.ts';

const { values } = parseArgs({
  options: {
    'idle-seconds': { type: 'string', default: '60' },
    rounds: { type: 'string', default: '2' },
  },
});
const idleSeconds = Number(values['idle-seconds']);
const rounds = Number(values.rounds);
const root = join(import.meta.dirname, '..');
const targets = { cpuPercent: 1, rssMiB: 5 };

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cpuSeconds = async (pid: number): Promise<number> => cpuSecondsOf(pid) ?? 0;
const rssMiB = async (pid: number): Promise<number> => rssMiBOf(pid) ?? 0;

function startAgent(
  server: string,
  token: string,
  route: string,
  profile: string | null,
  stateDir: string,
): ChildProcess {
  const script = `
    import { runAgentCommand } from ${JSON.stringify(join(root, 'agent/core/cli.ts'))};
    const [server, token, route, profile, stateDir] = process.argv.slice(1);
    process.exitCode = await runAgentCommand({
      server, token, route: [route], profile: profile ? [profile] : [], stateDir,
    });
  `;
  return spawn(
    process.execPath,
    ['--input-type=module', '-e', script, server, token, route, profile ?? '', stateDir],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

interface Idle {
  cpuPercent: number;
  rss: number;
  /** RSS at the end of the idle window less at its start: what the reads leave behind. */
  rssGrowth: number;
  statusReads: number;
}

async function measure(kind: 'folder' | 'socket'): Promise<Idle> {
  const server = await startRealAgentTestServer({
    longPollWaitSeconds: 25,
    heartbeatSeconds: 30,
    leaseSeconds: 120,
  });
  const printer = await new EscposSimulator().start();
  const work = await mkdtemp(join(tmpdir(), 'shopdesk-direct-bench-'));
  const agent =
    kind === 'folder'
      ? startAgent(
          server.url,
          server.token,
          `bench=folder:${join(work, 'out')}`,
          null,
          join(work, 'state'),
        )
      : startAgent(
          server.url,
          server.token,
          `bench=${printer.url}`,
          'bench={"language":"escpos","width_mm":80}',
          join(work, 'state'),
        );
  const exited = new Promise((resolve) => agent.once('exit', resolve));
  let stderr = '';
  agent.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const pid = agent.pid as number;
  try {
    while (!server.agentsWaiting()) {
      if (agent.exitCode !== null)
        throw new Error(`the agent exited with ${agent.exitCode}: ${stderr}`);
      await wait(50);
    }
    await wait(2000);
    const readsBefore = printer.connectionsAccepted;
    const rssBefore = await rssMiB(pid);
    const before = await cpuSeconds(pid);
    await wait(idleSeconds * 1000);
    const cpu = (await cpuSeconds(pid)) - before;
    const rss = await rssMiB(pid);
    return {
      cpuPercent: (cpu / idleSeconds) * 100,
      rss,
      rssGrowth: rss - rssBefore,
      statusReads: printer.connectionsAccepted - readsBefore,
    };
  } finally {
    agent.kill('SIGTERM');
    await exited;
    await printer.stop();
    await server.close();
    await rm(work, { recursive: true, force: true });
  }
}

const results: Record<'folder' | 'socket', Idle[]> = { folder: [], socket: [] };
for (let round = 0; round < rounds; round++) {
  // Alternated, so that a busy moment of the machine hits both alike.
  results.folder.push(await measure('folder'));
  results.socket.push(await measure('socket'));
}
const median = (numbers: number[]) => {
  const sorted = [...numbers].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const pad = (text: string, width: number) => text.padEnd(width);
console.log(
  `direct printer polling, idle agent (node ${process.version}, ${rounds} rounds of ${idleSeconds} s, medians; target: socket − folder ≤ ${targets.cpuPercent} % CPU, ≤ ${targets.rssMiB} MiB)`,
);
console.log(
  `  ${pad('route', 9)}${pad('CPU idle', 11)}${pad('RSS', 11)}${pad('RSS growth', 12)}status reads`,
);
for (const kind of ['folder', 'socket'] as const) {
  const runs = results[kind];
  console.log(
    `  ${pad(kind, 9)}${pad(`${median(runs.map((r) => r.cpuPercent)).toFixed(2)} %`, 11)}${pad(`${median(runs.map((r) => r.rss)).toFixed(1)} MiB`, 11)}${pad(`${median(runs.map((r) => r.rssGrowth)).toFixed(1)} MiB`, 12)}${median(runs.map((r) => r.statusReads))}`,
  );
}
const cpuCost =
  median(results.socket.map((r) => r.cpuPercent)) - median(results.folder.map((r) => r.cpuPercent));
const rssCost = median(results.socket.map((r) => r.rss)) - median(results.folder.map((r) => r.rss));
const met = cpuCost <= targets.cpuPercent && rssCost <= targets.rssMiB;
console.log(
  `  socket − folder: ${cpuCost.toFixed(2)} % CPU, ${rssCost.toFixed(1)} MiB — target ${met ? 'met' : 'NOT met'}`,
);
