/**
 * What a body that nobody may send costs the server: N clients announce
 * `Content-Length: 10000000000` on POST /api/v1/customers without a token and write zeros as
 * fast as the connection takes them, for S seconds. Prints, per run, what the clients got
 * in, the server's CPU time and RSS, and whether it closed the connections
 * (docs/security.md has the figures).
 *
 *   tsx bench/refused-body.ts [--clients 4] [--seconds 5] [--half-open] [--shopdesk DIR]
 *
 * `--half-open`: the clients go on writing after the server has closed its side (most
 * clients close theirs on seeing it), so the server's bounds on a refused body show.
 *
 * `--shopdesk DIR` runs `bin/shopdesk.js` of another checkout (an older commit) instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSecondsOf, startServer } from './lib/spawn.ts';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    shopdesk: { type: 'string', default: resolve(import.meta.dirname, '..') },
    'half-open': { type: 'boolean', default: false },
  },
});
const clients = Number(values.clients);
const seconds = Number(values.seconds);
/** The clients keep writing after the server's FIN, as a hostile one would. */
const halfOpen = values['half-open'];

interface ClientResult {
  written: number;
  closedByServerMs: number | null;
  status: string;
}

function flood(origin: string, ms: number): Promise<ClientResult> {
  const { hostname, port } = new URL(origin);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: halfOpen });
    const started = performance.now();
    const chunk = Buffer.alloc(64 * 1024);
    let written = 0;
    let closedByServerMs: number | null = null;
    let answer = '';
    let stopped = false;
    const finish = () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      socket.destroy();
      done({ written, closedByServerMs, status: answer.split('\r\n', 1)[0] ?? '' });
    };
    const timer = setTimeout(finish, ms);
    socket.on('error', () => {});
    socket.on('data', (data: Buffer) => {
      answer += data.toString('latin1');
    });
    socket.on('close', () => {
      closedByServerMs ??= performance.now() - started;
      finish();
    });
    const pump = () => {
      while (!stopped && socket.writable) {
        written += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
    };
    socket.on('connect', () => {
      socket.write(
        'POST /api/v1/customers HTTP/1.1\r\nHost: shop\r\nContent-Type: application/json\r\n' +
          'Content-Length: 10000000000\r\n\r\n',
      );
      pump();
    });
  });
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const dir = mkdtempSync(join(tmpdir(), 'shopdesk-refused-'));
const server = await startServer(
  'shopdesk',
  process.execPath,
  [
    join(values.shopdesk, 'bin/shopdesk.js'),
    'serve',
    '--port',
    '0',
    '--db',
    join(dir, 'db.sqlite'),
  ],
  { SHOPDESK_LOG_LEVEL: 'warn' },
);
try {
  const pid = server.child.pid!;
  const cpuBefore = cpuSecondsOf(pid) ?? 0;
  const results = await Promise.all(
    Array.from({ length: clients }, () => flood(server.origin, seconds * 1000)),
  );
  const cpu = (cpuSecondsOf(pid) ?? 0) - cpuBefore;
  const total = results.reduce((sum, result) => sum + result.written, 0);
  console.log(
    `${clients} clients × ${seconds} s, Content-Length 10000000000, no token (${values.shopdesk})`,
  );
  for (const [index, result] of results.entries()) {
    const closed =
      result.closedByServerMs === null
        ? 'still open'
        : `closed by the server after ${result.closedByServerMs.toFixed(0)} ms`;
    console.log(
      `  client ${index + 1}: ${result.status || '(no answer)'}, wrote ${(result.written / 1024 / 1024).toFixed(1)} MiB, ${closed}`,
    );
  }
  console.log(
    `  in all: ${(total / 1024 / 1024 / 1024).toFixed(2)} GiB written; server CPU ${cpu.toFixed(2)} s over ${seconds} s (${((cpu / seconds) * 100).toFixed(0)} % of a core), RSS ${rssMiB(pid).toFixed(0)} MiB`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
