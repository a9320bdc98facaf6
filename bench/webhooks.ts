/**
 * Webhook benchmark: `npx tsx bench/webhooks.ts [--events N] [--samples N] [--postgres URL]
 * [--cpu-prof DIR]`.
 *
 * Starts the real server (startApp on a temporary SQLite file, or with `--postgres` on a
 * fresh database created on that PostgreSQL server and dropped after; webhooks to local
 * addresses allowed, silent log) in a child process, and a receiver in this one (node:http
 * on 127.0.0.1, answering 204 at once; the first delivery is verified with the official
 * `standardwebhooks` package). Then measures:
 *  1. delivery throughput: bulk stock updates of 1,000 balances each write N
 *     `stock.changed` events; events/s from the first request to the last delivery, and
 *     duplicates (must be 0);
 *  2. commit → delivery delay: one `POST /printing/jobs` at a time (`print_job.created`);
 *     from the commit of its transaction (noted by the server, on the clock both processes
 *     share) to the receiver holding the delivery; p50, p99. Also from sending the request.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { startBenchApp } from './lib/bench-app.ts';

interface Ready {
  url: string;
  token: string;
  warehouse: number;
  products: number[];
}

/** The child: the real server over a fresh database, until the parent disconnects. */
async function serve(): Promise<void> {
  const { createCompany } = await import('../server/companies/create-company.ts');
  const { createToken } = await import('../server/tokens/create-token.ts');
  const { createWarehouse } = await import('../server/stock/create-warehouse.ts');
  const { app, close } = await startBenchApp();
  const storage = app.services.storage;
  // When each transaction that wrote events committed, on the clock both processes share
  // (the epoch, in ms with fractions): the delay to delivery is measured from there.
  const commits: number[] = [];
  app.services.outbox.onRecorded(() => commits.push(performance.timeOrigin + performance.now()));
  const company = await createCompany(storage.db, 'Bench shop');
  const token = await createToken(storage.db, {
    companyId: company,
    permissions: [
      'webhooks.manage',
      'inventory.stock.update',
      'products.create',
      'printing.jobs.create',
    ],
    name: 'bench',
  });
  const warehouse = await createWarehouse(storage.db, { companyId: company, code: 'W', name: 'W' });
  const url = `${app.url}/api/v1`;
  const products: number[] = [];
  for (let i = 0; i < 10; i++) {
    const answer = await request(`${url}/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        code: `BENCH-${i}`,
        name: `Product ${i}`,
        price: 1,
        unit: 'UN',
        manage_stock: true,
      }),
    });
    const created = (await answer.body.json()) as { data?: { id: number } };
    if (!created.data) throw new Error(`product: ${answer.statusCode} ${JSON.stringify(created)}`);
    products.push(created.data.id);
  }
  const ready: Ready = { url, token: token.secret, warehouse, products };
  process.send!(ready);
  // The parent asks for the server's CPU time: a figure that a busy machine distorts less.
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
    if (message === 'commits') process.send!({ commits: commits.splice(0) });
  });
  process.once('disconnect', async () => {
    await close();
    process.exit(0);
  });
}

/** The receiver: counts deliveries and notes when each arrived. */
function startReceiver() {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  let first: { body: string; headers: Record<string, string> } | undefined;
  let onArrival: (() => void) | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const id = String(req.headers['webhook-id']);
      if (arrivals.has(id)) duplicates++;
      arrivals.set(id, at);
      const body = Buffer.concat(chunks).toString('utf8');
      first ??= { body, headers: req.headers as Record<string, string> };
      res.writeHead(204).end();
      onArrival?.();
    });
  });
  return {
    server,
    arrivals,
    duplicates: () => duplicates,
    first: () => first,
    /** Called on each arrival from now on (one at a time: the last call wins). */
    onEach: (listener: () => void) => {
      onArrival = listener;
    },
  };
}

async function run(): Promise<void> {
  const { values } = parseArgs({
    options: {
      events: { type: 'string', default: '5000' },
      samples: { type: 'string', default: '300' },
      postgres: { type: 'string' },
      // A directory: the server child writes a V8 CPU profile there when it exits.
      'cpu-prof': { type: 'string' },
    },
  });
  const profile = values['cpu-prof'];
  const receiver = startReceiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const hookUrl = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks`;
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: profile
      ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profile}`]
      : process.execArgv,
    env: values.postgres ? { ...process.env, BENCH_POSTGRES: values.postgres } : process.env,
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Ready));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const dispatcher = new Agent({ connections: 16, keepAliveTimeout: 60_000 });
  const call = async (method: string, path: string, body: unknown) => {
    const answer = await request(`${ready.url}${path}`, {
      method: method as 'POST',
      headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      dispatcher,
    });
    const text = await answer.body.text();
    if (answer.statusCode >= 300)
      throw new Error(`${method} ${path}: ${answer.statusCode} ${text}`);
    return JSON.parse(text) as { data: { id: number; secret: string } };
  };
  try {
    const endpoint = await call('POST', '/webhooks', {
      url: hookUrl,
      events: ['stock.changed', 'print_job.created'],
    });
    await throughput(call, ready, receiver, Number(values.events), () => serverCpu(child));
    const first = receiver.first();
    if (!first) throw new Error('nothing was delivered');
    new Webhook(endpoint.data.secret).verify(first.body, first.headers);
    await latency(call, receiver, Number(values.samples), () => commitTimes(child));
  } finally {
    await dispatcher.close();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    // The profile is written as the child exits.
    if (profile) await exited;
    receiver.server.close();
    receiver.server.closeAllConnections();
  }
}

type Call = (method: string, path: string, body: unknown) => Promise<unknown>;

/** The commit times the server noted since last asked. */
function commitTimes(child: ReturnType<typeof fork>): Promise<number[]> {
  return new Promise((resolve) => {
    const listen = (message: unknown) => {
      const commits = (message as { commits?: number[] }).commits;
      if (!commits) return;
      child.off('message', listen);
      resolve(commits);
    };
    child.on('message', listen);
    child.send('commits');
  });
}

/** CPU seconds the server process has used so far. */
function serverCpu(child: ReturnType<typeof fork>): Promise<number> {
  return new Promise((resolve) => {
    const listen = (message: unknown) => {
      const cpu = (message as { cpu?: NodeJS.CpuUsage }).cpu;
      if (!cpu) return;
      child.off('message', listen);
      resolve((cpu.user + cpu.system) / 1e6);
    };
    child.on('message', listen);
    child.send('cpu');
  });
}

async function throughput(
  call: Call,
  ready: Ready,
  receiver: ReturnType<typeof startReceiver>,
  events: number,
  cpu: () => Promise<number>,
): Promise<void> {
  const bulks = Math.ceil(events / 1000);
  const cpuBefore = await cpu();
  const total = bulks * 1000;
  const before = receiver.arrivals.size;
  const all = new Promise<void>((resolve) =>
    receiver.onEach(() => {
      if (receiver.arrivals.size - before >= total) resolve();
    }),
  );
  const started = performance.now();
  for (let bulk = 0; bulk < bulks; bulk++) {
    // 10 products × 100 lots: 1,000 balances, each set to a new quantity.
    await call('PUT', '/inventory/stock/bulk', {
      items: ready.products.flatMap((product_id) =>
        Array.from({ length: 100 }, (_, lot) => ({
          product_id,
          warehouse_id: ready.warehouse,
          lot_number: `L${lot}`,
          quantity: bulk + 1,
        })),
      ),
    });
  }
  const written = performance.now();
  await all;
  const seconds = (performance.now() - started) / 1000;
  const used = (await cpu()) - cpuBefore;
  console.log(
    `delivery throughput: ${total} stock.changed events in ${bulks} bulk updates: ${(total / seconds).toFixed(0)} events/s delivered ` +
      `(${seconds.toFixed(2)} s; the updates took ${((written - started) / 1000).toFixed(2)} s; server CPU ${((used / seconds) * 100).toFixed(0)}%, ` +
      `${((used * 1e6) / total).toFixed(0)} µs an event, updates included), duplicates ${receiver.duplicates()}`,
  );
  if (receiver.duplicates() > 0) process.exitCode = 1;
}

async function latency(
  call: Call,
  receiver: ReturnType<typeof startReceiver>,
  samples: number,
  commits: () => Promise<number[]>,
): Promise<void> {
  const now = () => performance.timeOrigin + performance.now();
  await commits();
  const sent: number[] = [];
  const received: number[] = [];
  for (let n = 0; n < samples; n++) {
    const got = new Promise<void>((resolve) => receiver.onEach(resolve));
    sent.push(now());
    await call('POST', '/printing/jobs', {
      route: 'bench',
      content_type: 'text/plain',
      content_base64: Buffer.from(`receipt ${n}`).toString('base64'),
    });
    await got;
    received.push(now());
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const committed = await commits();
  if (committed.length !== samples)
    throw new Error(`${committed.length} commits for ${samples} events`);
  const line = (what: string, delays: number[]) => {
    const sorted = [...delays].sort((a, b) => a - b);
    const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
    return `${what}: p50 ${pct(0.5).toFixed(2)} ms, p99 ${pct(0.99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`;
  };
  console.log(
    `${line(
      'commit→delivery',
      received.map((at, i) => at - committed[i]!),
    )} over ${samples} print_job.created events, one at a time ` +
      `(${line(
        'from sending POST /printing/jobs',
        received.map((at, i) => at - sent[i]!),
      )})`,
  );
}

// Last, so that everything above is initialised before it is used.
if (process.argv.includes('--serve')) {
  await serve();
} else {
  await run();
}
