import { createHash } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import {
  confirmJobBody,
  createJobBody,
  nextJobBody,
  putRoutesBody,
  registerAgentBody,
} from '../../shared/printing.ts';

/**
 * The print queue an integrator would write in an afternoon on Fastify 5 (logger off) and
 * better-sqlite3, with ShopDesk's agent routes and request bodies (the same zod schemas):
 * register, PUT routes, POST /printing/jobs, POST /printing/jobs/next (long-poll, woken
 * in-process) and POST /printing/jobs/{id}/confirm. Per request: bearer token → sha256 →
 * a prepared SELECT on its tokens table (no cache), permission check, the agent looked up
 * by X-Agent-Id in the company. Its own schema (one jobs table holding the content), the
 * same pragmas as ShopDesk's storage. A claim is the obvious one: in an immediate
 * transaction, the best queued job of the agent's routes (`route IN (...) ORDER BY priority
 * DESC, id LIMIT 1`), then its UPDATE. A new job wakes every waiter of its route (an
 * EventEmitter would), each of which tries a claim. No history rows, no webhooks, no
 * leases swept: less work than ShopDesk does per job.
 *
 * `--db FILE` (created); tokens from BENCH_AGENT_TOKEN and BENCH_INTEGRATOR_TOKEN, both of
 * company 1.
 */
const at = process.argv.indexOf('--db');
if (at === -1) throw new Error('usage: fastify-queue.ts --db FILE');
const db = new BetterSqlite3(process.argv[at + 1]!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
db.exec(`
  create table if not exists tokens (
    id integer primary key, company_id integer not null, hash text not null unique,
    permissions text not null);
  create table if not exists agents (
    id integer primary key, company_id integer not null, uuid text not null unique,
    name text not null, hostname text not null, platform text not null, version text not null,
    printers text not null, created_at text not null, updated_at text not null);
  create table if not exists routes (
    agent_id integer not null references agents(id), name text not null, printer text not null,
    enabled integer not null, options text not null, primary key (agent_id, name));
  create table if not exists jobs (
    id integer primary key, company_id integer not null, route text not null, title text,
    status text not null, content_type text not null, content blob not null,
    size integer not null, sha256 text not null, copies integer not null,
    priority integer not null, options text not null, attempts integer not null default 0,
    agent_id text, printer text, created_at text not null, updated_at text not null,
    claimed_at text, printed_at text, expires_at text, lease_expires_at text);
  create index if not exists jobs_queue on jobs (company_id, route, priority desc, id)
    where status = 'queued';
`);
const insertToken = db.prepare(
  'insert or ignore into tokens (company_id, hash, permissions) values (1, ?, ?)',
);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
insertToken.run(sha256(process.env.BENCH_AGENT_TOKEN ?? ''), '["printing.agent"]');
insertToken.run(
  sha256(process.env.BENCH_INTEGRATOR_TOKEN ?? ''),
  '["printing.jobs.create","printing.jobs.read"]',
);

interface JobRow {
  id: number;
  route: string;
  title: string | null;
  status: string;
  content_type: string;
  content: Buffer;
  size: number;
  sha256: string;
  copies: number;
  priority: number;
  options: string;
  attempts: number;
  agent_id: string | null;
  printer: string | null;
  created_at: string;
  updated_at: string;
  claimed_at: string | null;
  printed_at: string | null;
  expires_at: string | null;
  lease_expires_at: string | null;
}

const tokenByHash = db.prepare<[string], { company_id: number; permissions: string }>(
  'select company_id, permissions from tokens where hash = ?',
);
const agentByUuid = db.prepare<[string, number], { id: number; uuid: string }>(
  'select id, uuid from agents where uuid = ? and company_id = ?',
);
const insertAgent = db.prepare(
  `insert into agents (company_id, uuid, name, hostname, platform, version, printers, created_at, updated_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, ?)
   on conflict (uuid) do update set name = excluded.name, updated_at = excluded.updated_at`,
);
const deleteRoutes = db.prepare('delete from routes where agent_id = ?');
const insertRoute = db.prepare(
  'insert into routes (agent_id, name, printer, enabled, options) values (?, ?, ?, ?, ?)',
);
const routesOf = db.prepare<[number], { name: string }>(
  'select name from routes where agent_id = ? and enabled = 1',
);
const insertJob = db.prepare(
  `insert into jobs (company_id, route, title, status, content_type, content, size, sha256,
     copies, priority, options, created_at, updated_at, expires_at)
   values (?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
);
const claimById = db.prepare(
  `update jobs set status = 'claimed', agent_id = ?, claimed_at = ?, lease_expires_at = ?,
     updated_at = ?, attempts = attempts + 1
   where id = ? and status = 'queued' returning *`,
);
const confirmById = db.prepare(
  `update jobs set status = 'printed', printer = ?, printed_at = ?, lease_expires_at = null,
     updated_at = ?
   where id = ? and company_id = ? and agent_id = ? and status = 'claimed' returning *`,
);

class Refusal extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function authenticate(request: FastifyRequest, permission: string): number {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
  const row = bearer ? tokenByHash.get(sha256(bearer)) : undefined;
  if (!row) throw new Refusal(401, 'Authentication required.');
  if (!(JSON.parse(row.permissions) as string[]).includes(permission)) {
    throw new Refusal(403, `This token lacks the permission ${permission}.`);
  }
  return row.company_id;
}

function callingAgent(request: FastifyRequest, companyId: number) {
  const uuid = String(request.headers['x-agent-id'] ?? '').toLowerCase();
  const agent = agentByUuid.get(uuid, companyId);
  if (!agent) throw new Refusal(409, 'No agent with this X-Agent-Id is registered.');
  return agent;
}

function parse<T>(schema: { parse(value: unknown): T }, body: unknown): T {
  try {
    return schema.parse(body ?? {});
  } catch {
    throw new Refusal(422, 'The given data was invalid.');
  }
}

const isoNow = (date = new Date()) => `${date.toISOString().slice(0, 19)}Z`;

function toRecord({ content: _content, options, ...row }: JobRow) {
  return {
    ...row,
    options: JSON.parse(options),
    error: null,
    reprint_of: null,
  };
}

/** Long-poll waiters per company and route: a new job wakes them all. */
const waiters = new Map<string, Set<() => void>>();
const keyOf = (companyId: number, route: string) => `${companyId}:${route}`;

const claim = db.transaction((companyId: number, agent: { id: number; uuid: string }) => {
  const routes = routesOf.all(agent.id).map((route) => route.name);
  if (routes.length === 0) return undefined;
  const picked = db
    .prepare<unknown[], { id: number }>(
      `select id from jobs where company_id = ? and status = 'queued'
         and route in (${routes.map(() => '?').join(', ')})
       order by priority desc, id limit 1`,
    )
    .get(companyId, ...routes);
  if (!picked) return undefined;
  const now = new Date();
  const stamp = isoNow(now);
  return claimById.get(
    agent.uuid,
    stamp,
    isoNow(new Date(now.getTime() + 60_000)),
    stamp,
    picked.id,
  ) as JobRow | undefined;
});

const app = Fastify({ logger: false, bodyLimit: 16 * 1024 * 1024 });

app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply: FastifyReply) => {
  const status =
    error instanceof Refusal
      ? error.status
      : error.statusCode && error.statusCode < 500
        ? error.statusCode
        : 500;
  return reply.code(status).send({ success: false, message: error.message });
});

app.post('/api/v1/printing/register', async (request, reply) => {
  const companyId = authenticate(request, 'printing.agent');
  const body = parse(registerAgentBody, request.body);
  const stamp = isoNow();
  insertAgent.run(
    companyId,
    body.uuid.toLowerCase(),
    body.name,
    body.hostname,
    body.platform,
    body.version,
    JSON.stringify(body.printers),
    stamp,
    stamp,
  );
  reply.code(201);
  return { data: { uuid: body.uuid.toLowerCase(), name: body.name } };
});

app.put('/api/v1/printing/routes', async (request) => {
  const agent = callingAgent(request, authenticate(request, 'printing.agent'));
  const body = parse(putRoutesBody, request.body);
  db.transaction(() => {
    deleteRoutes.run(agent.id);
    for (const route of body.routes) {
      insertRoute.run(
        agent.id,
        route.name,
        route.printer,
        route.enabled ? 1 : 0,
        JSON.stringify(route.options),
      );
    }
  })();
  return { data: { routes: body.routes } };
});

app.post('/api/v1/printing/jobs', async (request, reply) => {
  const companyId = authenticate(request, 'printing.jobs.create');
  const body = parse(createJobBody, request.body);
  const content = Buffer.from(body.content_base64 ?? '', 'base64');
  const now = new Date();
  const stamp = isoNow(now);
  const row = insertJob.get(
    companyId,
    body.route,
    body.title ?? null,
    body.content_type,
    content,
    content.length,
    sha256Of(content),
    body.copies,
    body.priority,
    JSON.stringify(body.options),
    stamp,
    stamp,
    body.expires_in === undefined ? null : isoNow(new Date(now.getTime() + body.expires_in * 1000)),
  ) as JobRow;
  for (const wake of [...(waiters.get(keyOf(companyId, body.route)) ?? [])]) wake();
  reply.code(201).header('location', `/api/v1/printing/jobs/${row.id}`);
  return { data: toRecord(row) };
});

function sha256Of(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

app.post('/api/v1/printing/jobs/next', async (request, reply) => {
  const companyId = authenticate(request, 'printing.agent');
  const agent = callingAgent(request, companyId);
  const { wait } = parse(nextJobBody, request.body);
  const deadline = Date.now() + wait * 1000;
  let gone = false;
  reply.raw.once('close', () => {
    gone = true;
  });
  for (;;) {
    const row = claim.immediate(companyId, agent);
    if (row) {
      return {
        data: {
          ...toRecord(row),
          document: {
            content_type: row.content_type,
            size: row.size,
            sha256: row.sha256,
            content_base64: row.content.toString('base64'),
          },
        },
      };
    }
    const left = deadline - Date.now();
    if (left <= 0) return reply.code(204).send();
    // Wait for a job on one of the agent's routes (or the end of the wait).
    const keys = routesOf.all(agent.id).map((route) => keyOf(companyId, route.name));
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        for (const key of keys) waiters.get(key)?.delete(done);
        reply.raw.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, left);
      for (const key of keys) {
        const set = waiters.get(key) ?? new Set();
        set.add(done);
        waiters.set(key, set);
      }
      reply.raw.once('close', done);
    });
    if (gone) return reply.code(204).send();
  }
});

app.post<{ Params: { id: string } }>(
  '/api/v1/printing/jobs/:id/confirm',
  async (request, reply) => {
    const companyId = authenticate(request, 'printing.agent');
    const agent = callingAgent(request, companyId);
    const body = parse(confirmJobBody, request.body);
    const stamp = isoNow();
    const row = confirmById.get(
      body.printer ?? null,
      stamp,
      stamp,
      Number(request.params.id),
      companyId,
      agent.uuid,
    ) as JobRow | undefined;
    if (!row) return reply.code(409).send({ success: false, message: 'Not held by this agent.' });
    return { data: toRecord(row) };
  },
);

const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`fastify queue listening on ${address}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
