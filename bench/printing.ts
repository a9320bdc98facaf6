/**
 * Print-queue benchmark: `npx tsx bench/printing.ts [--jobs N] [--agents N] [--waiters N]
 * [--postgres URL] [--webhook] [--cpu-prof DIR]`.
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
 * measures:
 *  1. claim + confirm throughput: N queued jobs, `--agents` agents on one route claiming
 *     (`wait: 0`) and confirming in parallel; jobs/s and duplicates (must be 0);
 *  2. enqueue → claim latency: `--waiters` agents long-polling one route; one job at a
 *     time is created and the time from sending POST /printing/jobs to the waiting agent
 *     holding the claimed job is taken; p50 and p99.
 */
import { fork } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { Agent, request } from 'undici';

interface Ready {
  url: string;
  agentToken: string;
  integratorToken: string;
}

/** A fresh database on the PostgreSQL server of `adminUrl`, and how to drop it. */
async function freshPostgres(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `shopdesk_bench_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

/** The child: the real server over a fresh database, until the parent disconnects. */
async function serve(): Promise<void> {
  const { startApp } = await import('../server/app.ts');
  const { defaultServerConfig } = await import('../server/config.ts');
  const { createCompany } = await import('../server/companies/companies.ts');
  const { issueToken } = await import('../server/tokens/tokens.ts');
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-bench-'));
  const adminUrl = process.env.BENCH_POSTGRES;
  const postgres = adminUrl ? await freshPostgres(adminUrl) : undefined;
  const app = await startApp(
    {
      ...defaultServerConfig,
      port: 0,
      database: postgres
        ? { kind: 'postgres', url: postgres.url }
        : { kind: 'sqlite', file: join(dir, 'bench.sqlite') },
      rateLimitPerMinute: 0,
      logLevel: 'silent',
      webhooks: { allowHttp: true, allowPrivate: true },
      secretKey: randomBytes(32).toString('base64'),
    },
    { log: pino({ level: 'silent' }) },
  );
  const storage = app.services.storage;
  const company = await createCompany(storage, 'Bench shop');
  const hookUrl = process.env.BENCH_WEBHOOK_URL;
  if (hookUrl) {
    const { createEndpoint } = await import('../server/webhooks/create-endpoint.ts');
    await createEndpoint(
      app.services.webhooks.endpoints,
      company,
      { url: hookUrl, events: ['*'] },
      new Date(),
    );
  }
  const agent = await issueToken(storage, {
    companyId: company,
    permissions: ['printing.agent'],
    name: 'bench agent',
  });
  const integrator = await issueToken(storage, {
    companyId: company,
    permissions: ['printing.jobs.create', 'printing.jobs.read'],
    name: 'bench integrator',
  });
  const ready: Ready = {
    url: `${app.url}/api/v1`,
    agentToken: agent.secret,
    integratorToken: integrator.secret,
  };
  process.send!(ready);
  // The parent asks for the server's CPU time to tell a saturated server from an idle one.
  process.on('message', (message) => {
    if (message === 'cpu') process.send!({ cpu: process.cpuUsage() });
  });
  process.once('disconnect', async () => {
    await app.close();
    await postgres?.drop();
    rmSync(dir, { recursive: true, force: true });
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
      postgres: { type: 'string' },
      webhook: { type: 'boolean', default: false },
      // A directory: the server child writes a V8 CPU profile there when it exits.
      'cpu-prof': { type: 'string' },
    },
  });
  const profile = values['cpu-prof'];
  const receiver = values.webhook ? await startReceiver() : undefined;
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (values.postgres) env.BENCH_POSTGRES = values.postgres;
  if (receiver) env.BENCH_WEBHOOK_URL = receiver.url;
  const child = fork(new URL(import.meta.url).pathname, ['--serve'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: profile
      ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${profile}`]
      : process.execArgv,
    env,
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Ready));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const dispatcher = new Agent({ connections: 256, keepAliveTimeout: 60_000, pipelining: 1 });
  const client = new Client(ready, dispatcher, () => serverCpu(child));
  try {
    await throughput(client, Number(values.jobs), Number(values.agents));
    await latency(client, Number(values.waiters), Number(values.samples));
    if (receiver) {
      // Let the dispatcher finish what is in flight before counting.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      console.log(`webhook deliveries received meanwhile: ${receiver.count()}`);
    }
  } finally {
    receiver?.close();
    await dispatcher.close();
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    // The profile is written as the child exits.
    if (profile) await exited;
  }
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

class Client {
  private readonly ready: Ready;
  private readonly dispatcher: Agent;
  readonly serverCpu: () => Promise<number>;

  constructor(ready: Ready, dispatcher: Agent, serverCpu: () => Promise<number>) {
    this.ready = ready;
    this.dispatcher = dispatcher;
    this.serverCpu = serverCpu;
  }

  async call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body: unknown,
    options: { agent?: string; token?: string } = {},
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field, checked by status.
  ): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${options.token ?? this.ready.agentToken}`,
      'content-type': 'application/json',
    };
    if (options.agent) headers['x-agent-id'] = options.agent;
    const answer = await request(`${this.ready.url}${path}`, {
      method,
      headers,
      body: JSON.stringify(body),
      dispatcher: this.dispatcher,
    });
    const text = await answer.body.text();
    return { status: answer.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  async agent(route: string): Promise<string> {
    const uuid = randomUUID();
    const registered = await this.call(
      'POST',
      '/printing/register',
      { uuid, name: 'bench', hostname: 'bench', platform: 'linux', version: '0', printers: [] },
      { agent: uuid },
    );
    if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
    await this.call(
      'PUT',
      '/printing/routes',
      { routes: [{ name: route, printer: 'null' }] },
      {
        agent: uuid,
      },
    );
    return uuid;
  }

  async createJob(route: string, n: number): Promise<number> {
    const answer = await this.call(
      'POST',
      '/printing/jobs',
      {
        route,
        content_type: 'text/plain',
        content_base64: Buffer.from(`receipt ${n}\n`).toString('base64'),
      },
      { token: this.ready.integratorToken },
    );
    if (answer.status !== 201) throw new Error(`create: ${answer.status}`);
    return answer.body.data.id;
  }
}

async function throughput(client: Client, jobs: number, agentCount: number): Promise<void> {
  const route = 'throughput';
  const agents = await Promise.all(Array.from({ length: agentCount }, () => client.agent(route)));
  // Enqueue (not timed), 32 at a time.
  let made = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (made < jobs) await client.createJob(route, made++);
    }),
  );
  const claims = new Map<number, number>();
  let duplicates = 0;
  const serverCpuBefore = await client.serverCpu();
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    agents.map(async (agent) => {
      for (;;) {
        const next = await client.call('POST', '/printing/jobs/next', { wait: 0 }, { agent });
        if (next.status === 204) return;
        if (next.status !== 200) throw new Error(`next: ${next.status}`);
        const id = next.body.data.id as number;
        if (claims.has(id)) duplicates++;
        claims.set(id, (claims.get(id) ?? 0) + 1);
        const confirm = await client.call('POST', `/printing/jobs/${id}/confirm`, {}, { agent });
        if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const clientCpu = (used.user + used.system) / 1e6;
  const serverCpuUsed = (await client.serverCpu()) - serverCpuBefore;
  console.log(
    `claim+confirm: ${jobs} jobs, ${agentCount} agents on one route: ${(claims.size / seconds).toFixed(0)} jobs/s ` +
      `(${seconds.toFixed(2)} s; CPU: server ${((serverCpuUsed / seconds) * 100).toFixed(0)}%, load generator ${((clientCpu / seconds) * 100).toFixed(0)}%), claimed ${claims.size}/${jobs}, duplicates ${duplicates}`,
  );
  if (duplicates > 0 || claims.size !== jobs) process.exitCode = 1;
}

async function latency(client: Client, waiters: number, samples: number): Promise<void> {
  const route = 'latency';
  const agents = await Promise.all(Array.from({ length: waiters }, () => client.agent(route)));
  const sentAt = new Map<number, number>();
  const delays: number[] = [];
  const seen = new Set<number>();
  let duplicates = 0;
  let arrived: ((id: number) => void) | undefined;
  let stopping = false;
  const polls = agents.map(async (agent) => {
    while (!stopping) {
      const next = await client.call('POST', '/printing/jobs/next', { wait: 30 }, { agent });
      if (next.status !== 200) continue;
      const at = performance.now();
      const id = next.body.data.id as number;
      if (seen.has(id)) duplicates++;
      seen.add(id);
      arrived?.(id);
      (async () => {
        // Give the job's creator a moment to note when it sent it.
        await Promise.resolve();
        delays.push(at - (sentAt.get(id) ?? at));
      })();
      await client.call('POST', `/printing/jobs/${id}/confirm`, {}, { agent });
    }
  });
  // Let every agent reach its long-poll before the first job.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (let n = 0; n < samples; n++) {
    const got = new Promise<number>((resolve) => {
      arrived = resolve;
    });
    const t0 = performance.now();
    const creating = client.createJob(route, n);
    const id = await creating;
    sentAt.set(id, t0);
    await got;
    // Spread the samples so that the waiters are back in their long-poll.
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  stopping = true;
  const sorted = [...delays].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  console.log(
    `enqueue→claim with ${waiters} agents long-polling: p50 ${pct(0.5).toFixed(2)} ms, p99 ${pct(0.99).toFixed(2)} ms, ` +
      `max ${sorted[sorted.length - 1]!.toFixed(2)} ms over ${sorted.length} jobs, duplicates ${duplicates}`,
  );
  if (duplicates > 0) process.exitCode = 1;
  // The waiters still long-polling end with the server.
  void polls;
}

// Last, so that the classes above are initialised before they are used.
if (process.argv.includes('--serve')) {
  await serve();
} else {
  await run();
}
