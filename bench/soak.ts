/**
 * `npm run soak` (not in CI): mixed traffic against `shopdesk serve` for SOAK_SECONDS
 * (default 600), with print agents long-polling the whole time, then a check that the
 * server's memory and open file descriptors did not grow past the bounds below
 * (docs/security.md records a run).
 *
 * Traffic: integrators creating, reading, searching and updating customers, products,
 * stock, quotes and print jobs; agents long-polling (`wait` 25 s), confirming and
 * heartbeating; and the clumsy and the hostile: bad JSON, NUL characters, ids past 2^31,
 * requests without a token announcing 10 GB bodies, clients that leave mid-body.
 *
 * Settings: SOAK_SECONDS, SOAK_WORKERS (integrators, default 6), SOAK_AGENTS (default 4),
 * SOAK_DATABASE_URL (a PostgreSQL database instead of a fresh SQLite file).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startServer } from './lib/spawn.ts';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const workers = Number(process.env.SOAK_WORKERS ?? 6);
const agents = Number(process.env.SOAK_AGENTS ?? 4);
/**
 * After the warm-up (caches, JIT, pools filled), growth past these is a leak. RSS swings by
 * 100 MiB and more between two garbage collections, so the lowest RSS of each half of the
 * run (what the live heap needs) is compared, not two samples taken anywhere in a cycle.
 */
const bounds = { rssMiB: 32, fds: 16 };

const bin = resolve(import.meta.dirname, '../bin/shopdesk.js');
const dir = mkdtempSync(join(tmpdir(), 'shopdesk-soak-'));
const database = process.env.SOAK_DATABASE_URL
  ? ['--database-url', process.env.SOAK_DATABASE_URL]
  : ['--db', join(dir, 'soak.sqlite')];
const cli = (...args: string[]) =>
  execFileSync(process.execPath, [bin, ...args, ...database], { encoding: 'utf8' }).trim();

const company = cli('company', 'create', '--name', 'Soak Shop');
const integrator = cli('token', 'create', '--company', company, '--permissions', '*');
const agentToken = cli('token', 'create', '--company', company, '--permissions', 'printing.agent');
cli('warehouse', 'create', '--company', company, '--code', 'W1');

const server = await startServer(
  'shopdesk',
  process.execPath,
  [bin, 'serve', '--port', '0', '--rate-limit', '0', ...database],
  {
    SHOPDESK_LOG_LEVEL: 'warn',
  },
);
const pid = server.child.pid!;
const api = `${server.origin}/api/v1`;

interface Sample {
  at: number;
  rssMiB: number;
  fds: number;
}

function sample(at: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return {
    at,
    rssMiB: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024,
    fds: readdirSync(`/proc/${pid}/fd`).length,
  };
}

const counts = { requests: 0, byStatus: new Map<number, number>(), failures: 0 };
let stopping = false;

async function call(
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const all: Record<string, string> = { ...headers };
  if (token) all.authorization = `Bearer ${token}`;
  let text: string | undefined;
  if (body !== undefined) {
    text = typeof body === 'string' ? body : JSON.stringify(body);
    all['content-type'] ??= 'application/json';
  }
  try {
    const response = await fetch(`${api}${path}`, { method, headers: all, body: text });
    const answer = await response.text();
    counts.requests++;
    counts.byStatus.set(response.status, (counts.byStatus.get(response.status) ?? 0) + 1);
    return { status: response.status, body: answer ? JSON.parse(answer) : undefined };
  } catch {
    counts.failures++;
    return { status: 0, body: undefined };
  }
}

/** A raw client that announces a body and leaves before sending it, or sends none at all. */
function rudeClient(kind: 'leave-mid-body' | 'huge-without-token'): Promise<void> {
  const { hostname, port } = new URL(server.origin);
  return new Promise((done) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.on('error', () => {});
    socket.on('close', () => {
      done();
    });
    socket.on('connect', () => {
      if (kind === 'leave-mid-body') {
        socket.write(
          `POST /api/v1/customers HTTP/1.1\r\nHost: soak\r\nAuthorization: Bearer ${integrator}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "Hal`,
        );
        setTimeout(() => socket.destroy(), 50);
      } else {
        socket.write(
          'POST /api/v1/customers HTTP/1.1\r\nHost: soak\r\nContent-Length: 10000000000\r\n\r\n',
        );
        socket.write(Buffer.alloc(256 * 1024));
        setTimeout(() => socket.destroy(), 2000);
      }
    });
  });
}

let sequence = 0;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function integratorLoop(worker: number): Promise<void> {
  while (!stopping) {
    const n = ++sequence;
    const step = n % 12;
    if (step === 0) {
      const created = await call('POST', '/customers', integrator, {
        name: `Cliente ${n}`,
        type: 'F',
        code: `C-${worker}-${n}`,
        addresses: [
          {
            zipcode: '20040020',
            street: 'Rua',
            district: 'Centro',
            city: 'Rio',
            state: 'RJ',
            number: String(n),
          },
        ],
      });
      if (created.status === 201)
        await call('GET', `/customers/${created.body.data.id}`, integrator);
    }
    if (step === 1)
      await call('GET', `/customers?search=${encodeURIComponent(`%_${n % 10}`)}`, integrator);
    if (step === 2) {
      await call('POST', '/products', integrator, {
        code: `P-${worker}-${n}`,
        name: `Produto ${n}`,
        price: 9.9,
        unit: 'UN',
        manage_stock: true,
      });
    }
    if (step === 3)
      await call('PUT', `/inventory/stock/products/by-code/P-${worker}-${n - 1}`, integrator, {
        quantity: n % 50,
        warehouse_code: 'W1',
      });
    if (step === 4) await call('GET', `/search/products?q=Produto`, integrator);
    if (step === 5) {
      await call('POST', '/printing/jobs', integrator, {
        route: 'receipts',
        content_type: 'text/plain',
        content_base64: Buffer.from(`receipt ${n}\n`).toString('base64'),
      });
    }
    if (step === 6) await call('GET', `/customers/${2 ** 31 + n}`, integrator);
    if (step === 7)
      await call('POST', '/customers', integrator, { name: `NUL\u0000${n}`, type: 'F' });
    if (step === 8)
      await call('POST', '/customers', integrator, '{"name": broken', {
        'content-type': 'application/json',
      });
    if (step === 9) await call('GET', '/printing/history?per_page=50', integrator);
    if (step === 10) await rudeClient(n % 24 === 10 ? 'huge-without-token' : 'leave-mid-body');
    if (step === 11) await call('GET', '/customers?per_page=100', integrator);
    await pause(5);
  }
}

async function agentLoop(): Promise<void> {
  const uuid = randomUUID();
  const headers = { 'x-agent-id': uuid };
  await call('POST', '/printing/register', agentToken, {
    uuid,
    name: 'Soak till',
    hostname: 'soak',
    platform: 'linux',
    version: '0.1.0',
  });
  await call(
    'PUT',
    '/printing/routes',
    agentToken,
    { routes: [{ name: 'receipts', printer: 'P' }] },
    headers,
  );
  let heartbeatAt = 0;
  while (!stopping) {
    const next = await call('POST', '/printing/jobs/next', agentToken, { wait: 25 }, headers);
    if (next.status === 200)
      await call('POST', `/printing/jobs/${next.body.data.id}/confirm`, agentToken, {}, headers);
    if (performance.now() - heartbeatAt > 15_000) {
      heartbeatAt = performance.now();
      await call('POST', '/printing/heartbeat', agentToken, {}, headers);
    }
    if (next.status === 0) await pause(500);
  }
}

const started = performance.now();
const samples: Sample[] = [];
const loops = [
  ...Array.from({ length: workers }, (_, index) => integratorLoop(index)),
  ...Array.from({ length: agents }, () => agentLoop()),
];
const warmUpMs = Math.min(60_000, (seconds * 1000) / 5);
await pause(warmUpMs);
samples.push(sample(performance.now() - started));
while (performance.now() - started < seconds * 1000) {
  await pause(Math.min(15_000, seconds * 1000 - (performance.now() - started)));
  samples.push(sample(performance.now() - started));
  const last = samples.at(-1)!;
  console.log(
    `${(last.at / 1000).toFixed(0)} s: ${counts.requests} requests, RSS ${last.rssMiB.toFixed(1)} MiB, ${last.fds} fds`,
  );
}
stopping = true;
// Long-polls end within their 25 s wait; idle keep-alive sockets within 11 s.
await Promise.all(loops);
await pause(12_000);
const settled = sample(performance.now() - started);
await server.stop();
rmSync(dir, { recursive: true, force: true });

const first = samples[0]!;
const half = Math.ceil(samples.length / 2);
const lowest = (part: Sample[]) => Math.min(...part.map((s) => s.rssMiB));
const highest = (part: Sample[]) => Math.max(...part.map((s) => s.rssMiB));
const [early, late] = [samples.slice(0, half), samples.slice(half)];
console.log('');
console.log(
  `soak: ${seconds} s, ${workers} integrators, ${agents} agents long-polling, ${counts.requests} requests (${(counts.requests / seconds).toFixed(0)}/s), ${counts.failures} failed to connect`,
);
console.log(
  `  statuses: ${[...counts.byStatus]
    .sort()
    .map(([status, n]) => `${status}×${n}`)
    .join(' ')}`,
);
console.log(
  `  after the ${(warmUpMs / 1000).toFixed(0)} s warm-up: RSS ${first.rssMiB.toFixed(1)} MiB, ${first.fds} fds`,
);
console.log(
  `  RSS, lowest / highest: first half ${lowest(early).toFixed(1)} / ${highest(early).toFixed(1)} MiB, second half ${lowest(late).toFixed(1)} / ${highest(late).toFixed(1)} MiB`,
);
console.log(
  `  at the end of the traffic: RSS ${samples.at(-1)!.rssMiB.toFixed(1)} MiB, ${samples.at(-1)!.fds} fds; settled (traffic stopped, idle connections closed): RSS ${settled.rssMiB.toFixed(1)} MiB, ${settled.fds} fds`,
);
const rssGrowth = lowest(late) - lowest(early);
const fdGrowth = settled.fds - first.fds;
const errors = counts.byStatus.get(500) ?? 0;
const within = rssGrowth <= bounds.rssMiB && fdGrowth <= bounds.fds && errors === 0;
console.log(
  `  growth: lowest RSS ${rssGrowth.toFixed(1)} MiB (bound ${bounds.rssMiB}), fds ${fdGrowth} (bound ${bounds.fds}), 5xx ${errors}: ${within ? 'within the bounds' : 'OUT OF BOUNDS'}`,
);
process.exitCode = within ? 0 : 1;
