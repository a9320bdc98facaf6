import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  type AgentRecord,
  type ClaimedJob,
  type CreateJobBody,
  confirmJobBody,
  createJobBody,
  heartbeatBody,
  type JobRecord,
  nextJobBody,
  type PrintRoute,
  putRoutesBody,
  registerAgentBody,
  reportErrorBody,
} from '../../../shared/printing.ts';

/**
 * A tiny in-memory stand-in for the server's print-queue routes (node:http), following the
 * team's contract, until the real server lands. Tests name themselves "... against a stub
 * server". It validates request bodies with the shared schemas, so a client that sends
 * something the real server would refuse fails here too. Faults can be queued per path.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface Fault {
  method?: string;
  /** Matched against the path without the /api/v1 prefix. */
  path: RegExp;
  /** An HTTP answer, or `drop` to cut the connection without one. */
  status: number | 'drop';
  headers?: Record<string, string>;
  body?: unknown;
  times?: number;
}

interface StoredJob {
  record: JobRecord;
  content: Buffer;
}

export interface PrintQueueStubOptions {
  token?: string;
  port?: number;
  intervals?: { long_poll_wait_seconds: number; heartbeat_seconds: number; lease_seconds: number };
}

export interface PrintQueueStub {
  url: string;
  token: string;
  port: number;
  requests: RecordedRequest[];
  agents: Map<string, AgentRecord>;
  routes: Map<string, PrintRoute[]>;
  addFault(fault: Fault): void;
  createJob(body: Partial<CreateJobBody> & { route: string; content: Buffer | string }): JobRecord;
  job(id: number): JobRecord;
  /** Marks a claimed job failed as an expired lease would. */
  expireLease(id: number): void;
  /** Stops answering (connections refused) while keeping its data, as a server that went down. */
  goOffline(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function startPrintQueueStub(
  options: PrintQueueStubOptions = {},
): Promise<PrintQueueStub> {
  const token = options.token ?? 'stub-agent-token';
  const intervals = options.intervals ?? {
    long_poll_wait_seconds: 10,
    heartbeat_seconds: 1,
    lease_seconds: 120,
  };
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const agents = new Map<string, AgentRecord>();
  const routes = new Map<string, PrintRoute[]>();
  const jobs = new Map<number, StoredJob>();
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  let nextJobId = 1;

  function send(
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    if (body === undefined) {
      res.writeHead(status, headers).end();
      return;
    }
    res
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(body));
  }
  const fail = (res: ServerResponse, status: number, code: string, message: string, extra = {}) =>
    send(res, status, { success: false, message, code, ...extra });

  function wakeWaiters() {
    for (const wake of [...waiters]) wake();
  }

  function claimFor(agentId: string): ClaimedJob | null {
    const enabled = new Set(
      (routes.get(agentId) ?? []).filter((route) => route.enabled).map((route) => route.name),
    );
    const candidates = [...jobs.values()]
      .filter((job) => job.record.status === 'queued' && enabled.has(job.record.route))
      .sort((a, b) => b.record.priority - a.record.priority || a.record.id - b.record.id);
    const chosen = candidates[0];
    if (!chosen) return null;
    const at = now();
    chosen.record = {
      ...chosen.record,
      status: 'claimed',
      agent_id: agentId,
      attempts: chosen.record.attempts + 1,
      claimed_at: at,
      updated_at: at,
    };
    return {
      ...chosen.record,
      document: {
        content_type: chosen.record.content_type,
        size: chosen.content.length,
        sha256: chosen.record.sha256,
        content_base64: chosen.content.toString('base64'),
      },
    };
  }

  function createJob(
    body: Partial<CreateJobBody> & { route: string; content: Buffer | string },
    reprintOf: number | null = null,
  ): JobRecord {
    const content = Buffer.from(body.content);
    const parsed = createJobBody.parse({
      content_type: 'application/pdf',
      ...body,
      content: undefined,
      content_base64: content.toString('base64'),
    });
    const at = now();
    const record: JobRecord = {
      id: nextJobId++,
      route: parsed.route,
      title: parsed.title ?? null,
      status: 'queued',
      content_type: parsed.content_type,
      size: content.length,
      sha256: createHash('sha256').update(content).digest('hex'),
      copies: parsed.copies,
      priority: parsed.priority,
      options: parsed.options,
      attempts: 0,
      agent_id: null,
      printer: null,
      error: null,
      reprint_of: reprintOf,
      created_at: at,
      updated_at: at,
      claimed_at: null,
      printed_at: null,
      expires_at: null,
      lease_expires_at: null,
    };
    jobs.set(record.id, { record, content });
    wakeWaiters();
    return record;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, rawBody: string) {
    const url = new URL(req.url ?? '/', 'http://stub');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    let body: unknown;
    try {
      body = rawBody === '' ? undefined : JSON.parse(rawBody);
    } catch {
      return fail(res, 400, 'malformed_json', 'The request body is not valid JSON.');
    }
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });

    const fault = faults.find(
      (candidate) =>
        candidate.path.test(path) &&
        (candidate.method === undefined || candidate.method === req.method),
    );
    if (fault) {
      fault.times = (fault.times ?? 1) - 1;
      if (fault.times <= 0) faults.splice(faults.indexOf(fault), 1);
      if (fault.status === 'drop') {
        req.socket.destroy();
        return;
      }
      return send(
        res,
        fault.status,
        fault.body ?? { success: false, message: 'injected', code: 'internal' },
        fault.headers,
      );
    }

    if (req.headers.authorization !== `Bearer ${token}`) {
      res.setHeader('www-authenticate', 'Bearer');
      return fail(res, 401, 'unauthenticated', 'Unauthenticated.');
    }
    const agentId = String(req.headers['x-agent-id'] ?? '');
    const validation = (error: { issues: { path: PropertyKey[]; message: string }[] }) =>
      fail(res, 422, 'validation_failed', 'The given data was invalid.', {
        errors: Object.fromEntries(
          error.issues.map((issue) => [issue.path.join('.'), [issue.message]]),
        ),
      });

    if (req.method === 'POST' && path === '/printing/register') {
      const parsed = registerAgentBody.safeParse(body);
      if (!parsed.success) return validation(parsed.error);
      const existing = agents.get(parsed.data.uuid);
      const at = now();
      const record: AgentRecord = {
        id: parsed.data.uuid,
        name: parsed.data.name,
        hostname: parsed.data.hostname,
        platform: parsed.data.platform,
        version: parsed.data.version,
        printers: parsed.data.printers,
        paused: false,
        online: true,
        last_seen_at: at,
        created_at: existing?.created_at ?? at,
        updated_at: at,
      };
      agents.set(record.id, record);
      return send(res, existing ? 200 : 201, { data: record });
    }

    const agent = agents.get(agentId);
    if (!agent) return fail(res, 409, 'conflict', 'Register the agent first.');

    if (req.method === 'POST' && path === '/printing/heartbeat') {
      const parsed = heartbeatBody.safeParse(body ?? {});
      if (!parsed.success) return validation(parsed.error);
      // As the server does: the printers and the paused flag are what the agent last said.
      if (parsed.data.printers !== undefined) agent.printers = parsed.data.printers;
      if (parsed.data.paused !== undefined) agent.paused = parsed.data.paused;
      agent.last_seen_at = now();
      const extended: number[] = [];
      const released: number[] = [];
      for (const id of parsed.data.held_job_ids) {
        const job = jobs.get(id);
        if (job && job.record.status === 'claimed' && job.record.agent_id === agentId)
          extended.push(id);
        else released.push(id);
      }
      return send(res, 200, {
        data: {
          server_time: now(),
          extended_job_ids: extended,
          released_job_ids: released,
          lease_expires_at: extended.length > 0 ? now() : null,
        },
      });
    }
    if (req.method === 'GET' && path === '/printing/config') {
      return send(res, 200, {
        data: {
          company: { id: 1, name: 'Stub shop' },
          agent,
          routes: routes.get(agentId) ?? [],
          route_names: [...new Set([...routes.values()].flat().map((route) => route.name))],
          intervals,
        },
      });
    }
    if (req.method === 'PUT' && path === '/printing/routes') {
      const parsed = putRoutesBody.safeParse(body);
      if (!parsed.success) return validation(parsed.error);
      routes.set(agentId, parsed.data.routes);
      wakeWaiters();
      return send(res, 200, { data: { routes: parsed.data.routes } });
    }
    if (req.method === 'POST' && path === '/printing/jobs/next') {
      const parsed = nextJobBody.safeParse(body ?? {});
      if (!parsed.success) return validation(parsed.error);
      const deadline = Date.now() + parsed.data.wait * 1000;
      // A long-poll whose client went away (agent paused or stopping) must not claim a job:
      // nobody would print it. The real server has to do the same.
      let gone = false;
      res.once('close', () => {
        gone = true;
      });
      for (;;) {
        if (gone) return;
        const claimed = claimFor(agentId);
        if (claimed) return send(res, 200, { data: claimed });
        const left = deadline - Date.now();
        if (left <= 0) return send(res, 204);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
          res.once('close', wake);
        });
      }
    }
    if (req.method === 'POST' && path === '/printing/jobs') {
      const parsed = createJobBody.safeParse(body);
      if (!parsed.success) return validation(parsed.error);
      const { content_base64, ...rest } = parsed.data;
      return send(res, 201, {
        data: createJob({ ...rest, content: Buffer.from(content_base64, 'base64') }),
      });
    }
    const jobMatch = /^\/printing\/jobs\/(\d+)(?:\/(confirm|error|retry|reprint))?$/.exec(path);
    const job = jobMatch ? jobs.get(Number(jobMatch[1])) : undefined;
    if (jobMatch && !job) return fail(res, 404, 'not_found', 'Not found.');
    if (job && req.method === 'GET' && jobMatch?.[2] === undefined) {
      return send(res, 200, { data: { ...job.record, events: [] } });
    }
    if (job && req.method === 'POST') {
      const action = jobMatch?.[2];
      const at = now();
      const conflict = () =>
        fail(res, 409, 'conflict', 'The request conflicts with the current state.');
      if (action === 'confirm') {
        const parsed = confirmJobBody.safeParse(body ?? {});
        if (!parsed.success) return validation(parsed.error);
        if (job.record.agent_id !== agentId) return conflict();
        if (job.record.status === 'printed') return send(res, 200, { data: job.record });
        if (job.record.status !== 'claimed') return conflict();
        job.record = {
          ...job.record,
          status: 'printed',
          printer: parsed.data.printer ?? null,
          printed_at: at,
          updated_at: at,
        };
        return send(res, 200, { data: job.record });
      }
      if (action === 'error') {
        const parsed = reportErrorBody.safeParse(body);
        if (!parsed.success) return validation(parsed.error);
        if (job.record.agent_id !== agentId || job.record.status !== 'claimed') return conflict();
        job.record = {
          ...job.record,
          status: 'failed',
          error: { message: parsed.data.message, code: parsed.data.code ?? null },
          updated_at: at,
        };
        return send(res, 200, { data: job.record });
      }
      if (action === 'retry') {
        if (job.record.status !== 'failed' && job.record.status !== 'expired') return conflict();
        job.record = {
          ...job.record,
          status: 'queued',
          agent_id: null,
          error: null,
          updated_at: at,
        };
        wakeWaiters();
        return send(res, 200, { data: job.record });
      }
      if (action === 'reprint') {
        if (job.record.status !== 'printed' && job.record.status !== 'failed') return conflict();
        const { id, ...original } = job.record;
        const created = createJob(
          { ...original, title: original.title ?? undefined, content: job.content },
          id,
        );
        return send(res, 201, { data: created });
      }
    }
    return fail(res, 404, 'not_found', 'Not found.');
  }

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error) => {
        if (!res.headersSent) fail(res, 500, 'internal', String(error));
      });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function listen(port: number): Promise<number> {
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }
  async function shut(): Promise<void> {
    const closed = new Promise((resolve) => server.close(resolve));
    for (const socket of sockets) socket.destroy();
    wakeWaiters();
    await closed;
  }

  const port = await listen(options.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    port,
    requests,
    agents,
    routes,
    addFault: (fault) => faults.push(fault),
    createJob: (body) => createJob(body),
    job: (id) => {
      const job = jobs.get(id);
      if (!job) throw new Error(`no job ${id}`);
      return job.record;
    },
    expireLease: (id) => {
      const job = jobs.get(id);
      if (!job) throw new Error(`no job ${id}`);
      job.record = {
        ...job.record,
        status: 'failed',
        error: { message: 'lease expired', code: 'lease_expired' },
      };
    },
    goOffline: shut,
    comeBack: async () => {
      await listen(port);
    },
    close: shut,
  };
}
