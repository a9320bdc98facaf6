import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { type App, startApp } from '../../server/app.ts';
import { createCompany } from '../../server/companies/create-company.ts';
import { defaultServerConfig, type ServerConfig } from '../../server/config.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import type { Permission } from '../../shared/permissions.ts';
import type { CreateJobBody, JobRecord } from '../../shared/printing.ts';
import { migratedSqliteFile } from './migrated-schema.ts';
import { suiteRenders, TestClock } from './server.ts';

/**
 * The real server (server/app.ts over a real SQLite file) in the test's process, as the
 * agent's tests need it: an agent token, jobs queued and read as an integrator would, and
 * stopping it and starting it again on the same database file and port.
 */
export interface RealAgentTestServer {
  url: string;
  /** A token with `printing.agent`. */
  token: string;
  /** Queues a job as an integrator would (`POST /printing/jobs`, text/plain unless told). */
  createJob(
    body: Partial<Omit<CreateJobBody, 'content_base64'>> & {
      route: string;
      content: Buffer | string;
    },
  ): Promise<JobRecord>;
  /** `GET /printing/jobs/{id}`. */
  job(id: number): Promise<JobRecord>;
  close(): Promise<void>;
  dbFile: string;
  companyId: number;
  /** A token with the agent's and the integrator's printing permissions (retry needs X-Agent-Id). */
  adminToken: string;
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON they asked for.
  ): Promise<{ status: number; body: any }>;
  /** Closes the HTTP server and the database (graceful); the data stays. */
  stop(): Promise<void>;
  /** Starts again on the same SQLite file and the same port. */
  restart(): Promise<void>;
  running(): boolean;
  /**
   * Whether an agent's long-poll sleeps on the server now, its claims done (as
   * `agentsWaiting` in test/helpers/server.ts).
   */
  agentsWaiting(): boolean;
  /** Another token of the company (the tests revoke it with `shopdesk token revoke`). */
  issueToken(permissions: Permission[]): Promise<{ id: number; secret: string }>;
  /** The server's clock: a test moves it on to let a lease lapse without sleeping. */
  clock: TestClock;
  /** Fails lapsed leases now, as the server's timer does every few seconds. */
  sweep(): Promise<{ leaseExpired: number[] }>;
  /** The running server's services (a test makes a console user with its storage). */
  services(): App['services'];
}

export async function startRealAgentTestServer(
  config: Partial<ServerConfig> = {},
): Promise<RealAgentTestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-e2e-'));
  const dbFile = join(dir, 'shopdesk.sqlite');
  // A copy of the migrated schema (migrated-schema.ts), as test/helpers/server.ts starts
  // from, instead of every migration again: the agent's runtime tests make one per test.
  copyFileSync(await migratedSqliteFile(), dbFile);
  let port = 0;
  const clock = new TestClock();
  const boot = async (): Promise<App> =>
    startApp(
      {
        ...defaultServerConfig,
        host: '127.0.0.1',
        port,
        database: { kind: 'sqlite', file: dbFile },
        rateLimitPerMinute: 0,
        logLevel: 'silent',
        ...config,
        renders: suiteRenders(config.renders),
      },
      { log: pino({ level: 'silent' }), clock },
    );
  let app: App | null = await boot();
  const url = app.url;
  port = Number(new URL(url).port);
  const storage = app.services.storage;
  const companyId = await createCompany(storage.db, 'E2E shop');
  const issue = async (permissions: Parameters<typeof createToken>[1]['permissions']) =>
    (await createToken(storage.db, { companyId, permissions, name: 'e2e' })).secret;
  const token = await issue(['printing.agent']);
  const integratorToken = await issue(['printing.jobs.create', 'printing.jobs.read']);
  const adminToken = await issue(['printing.agent', 'printing.jobs.create', 'printing.jobs.read']);

  const call = async (
    method: string,
    path: string,
    bearer: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${bearer}`,
        ...headers,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };

  return {
    url,
    token,
    dbFile,
    companyId,
    adminToken,
    request: (method, path, body, headers) => call(method, path, adminToken, body, headers),
    async createJob({ content, ...rest }) {
      const answer = await call('POST', '/printing/jobs', integratorToken, {
        content_type: 'text/plain',
        ...rest,
        content_base64: Buffer.from(content).toString('base64'),
      });
      if (answer.status !== 201) {
        throw new Error(`POST /printing/jobs: ${answer.status} ${JSON.stringify(answer.body)}`);
      }
      return answer.body.data as JobRecord;
    },
    async job(id) {
      const answer = await call('GET', `/printing/jobs/${id}`, integratorToken);
      if (answer.status !== 200) {
        throw new Error(
          `GET /printing/jobs/${id}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
      }
      return answer.body.data as JobRecord;
    },
    clock,
    running: () => app !== null,
    agentsWaiting: () => app?.services.printing.anyLongPollAsleep() ?? false,
    async issueToken(permissions) {
      if (app === null) throw new Error('the server is stopped');
      return createToken(app.services.storage.db, { companyId, permissions, name: 'e2e extra' });
    },
    async sweep() {
      if (app === null) throw new Error('the server is stopped');
      return app.services.printing.sweep();
    },
    services() {
      if (app === null) throw new Error('the server is stopped');
      return app.services;
    },
    async stop() {
      const current = app;
      app = null;
      await current?.close();
    },
    async restart() {
      if (app !== null) throw new Error('the server is running');
      app = await boot();
    },
    async close() {
      const current = app;
      app = null;
      await current?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
