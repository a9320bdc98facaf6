import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { Pool } from 'undici';
import { type App, startApp } from '../../server/app.ts';
import { createCompany } from '../../server/companies/create-company.ts';
import {
  type DatabaseTarget,
  defaultServerConfig,
  type ServerConfig,
} from '../../server/config.ts';
import type { Clock } from '../../server/time.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import type { Permission } from '../../shared/permissions.ts';
import { permissions as allPermissions } from '../../shared/permissions.ts';
import { migratedSqliteFile } from './migrated-schema.ts';

/**
 * The render threads of a server the suite starts: at the server's own priority, since
 * beside three other test files on two cores a thread at nice 19 waited seconds for a core,
 * and a minute on a loaded CI run, where an agent's claim went unanswered (docs/testing.md).
 */
export const suiteRenders = (renders?: ServerConfig['renders']): ServerConfig['renders'] => ({
  niceness: 0,
  ...renders,
});

/** The secret key of the PostgreSQL instances the tests start: one for all, as deployed. */
export const testSecretKey = Buffer.alloc(32, 0x5a).toString('base64');

/** A clock the test moves by hand: leases and expiries without sleeping. */
export class TestClock implements Clock {
  private offsetMs = 0;
  private stoppedAt: number | undefined;
  now(): Date {
    return new Date((this.stoppedAt ?? Date.now()) + this.offsetMs);
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
  /**
   * From now on the clock moves only by `advance`: a test that proves a bound to the second
   * does not depend on how long the machine takes between two requests. Give two instances
   * the same `at`.
   */
  stop(at: number = Date.now()): void {
    this.stoppedAt = at;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON bodies by path; each asserts the shape it needs.
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestServer {
  /** Origin, e.g. http://127.0.0.1:40123 */
  url: string;
  /** `${url}/api/v1` */
  api: string;
  app: App;
  clock: TestClock;
  dbFile: string;
  createCompany(name?: string): Promise<number>;
  /** Issues a token; `'*'` for every permission. */
  token(
    companyId: number,
    permissions: Permission[] | '*',
    expiresInDays?: number,
  ): Promise<string>;
  // biome-ignore lint/suspicious/noExplicitAny: as for Answer.
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Answer<T>>;
  /** `path` under /api/v1 sent exactly as given (no headers added), the answer's text unread. */
  send(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string | Buffer,
  ): Promise<{ status: number; headers: Headers; text: string }>;
  /**
   * Whether an agent's long-poll sleeps on this server now, its claims done: what a test
   * waits for before it queues a job, so that the job reaches it by a wake-up (one merely
   * listening may still claim it in its first try).
   */
  agentsWaiting(): boolean;
  close(): Promise<void>;
}

/**
 * A real server on port 0 over a real SQLite file in a fresh temporary folder (or on a
 * database target the test gives, e.g. PostgreSQL).
 */
export async function startTestServer(
  options: {
    rateLimit?: number;
    database?: DatabaseTarget;
    config?: Partial<ServerConfig>;
    /** The server's logger; silent unless a test captures the logs (see `captureLogs`). */
    log?: Logger;
    /** The webhook dispatcher's settings (a short timeout, a resolver of the test's own). */
    webhooks?: NonNullable<Parameters<typeof startApp>[1]>['webhooks'];
    /** The SQLite file to use (a restart on the same data); a fresh one otherwise. */
    dbFile?: string;
    /** The console's live events (a long poll, to see what wakes streams without it). */
    live?: NonNullable<Parameters<typeof startApp>[1]>['live'];
  } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'shopdesk-test-'));
  const dbFile = options.dbFile ?? join(dir, 'shopdesk.sqlite');
  // A fresh file starts as a copy of the migrated schema (migrated-schema.ts).
  if (!options.dbFile && !options.database) copyFileSync(await migratedSqliteFile(), dbFile);
  const clock = new TestClock();
  const database = options.database ?? { kind: 'sqlite', file: dbFile };
  const app = await startApp(
    {
      ...defaultServerConfig,
      host: '127.0.0.1',
      port: 0,
      database,
      rateLimitPerMinute: options.rateLimit ?? 0,
      logLevel: 'silent',
      // PostgreSQL: every instance needs the same key (else it would go to ./data).
      ...(database.kind === 'postgres' && { secretKey: testSecretKey }),
      ...options.config,
      renders: suiteRenders(options.config?.renders),
    },
    {
      clock,
      log: options.log ?? pino({ level: 'silent' }),
      webhooks: options.webhooks,
      live: options.live,
    },
  );
  const storage = app.services.storage;
  let companies = 0;
  // Kept-alive connections of its own: Node's fetch costs more CPU per request, and after an
  // answer that came before its body was read it opens a new connection for every request.
  const connections = new Pool(app.url);
  const server: TestServer = {
    url: app.url,
    api: `${app.url}/api/v1`,
    app,
    clock,
    dbFile,
    createCompany: (name) => createCompany(storage.db, name ?? `Company ${++companies}`),
    async token(companyId, permissions, expiresInDays) {
      const issued = await createToken(storage.db, {
        companyId,
        permissions: permissions === '*' ? [...allPermissions] : permissions,
        name: 'test',
        expiresInDays,
      });
      return issued.secret;
    },
    async request(method, path, requestOptions = {}) {
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...requestOptions.headers,
      };
      if (requestOptions.token) headers.authorization = `Bearer ${requestOptions.token}`;
      let body: string | Buffer | undefined;
      if (requestOptions.rawBody !== undefined) body = requestOptions.rawBody;
      else if (requestOptions.body !== undefined) {
        body = JSON.stringify(requestOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const answer = await server.send(method, path, headers, body);
      let parsed: unknown = answer.text;
      if (answer.text && (answer.headers.get('content-type') ?? '').includes('json')) {
        parsed = JSON.parse(answer.text);
      }
      return { status: answer.status, headers: answer.headers, body: parsed as never };
    },
    async send(method, path, headers, body) {
      // The path as fetch would send it: the URL parser's escaping of what a path may not
      // hold raw, and its dot segments resolved.
      const url = new URL(`${app.url}/api/v1${path}`);
      const response = await connections.request({
        path: `${url.pathname}${url.search}`,
        method: method as 'GET',
        headers,
        body,
      });
      const text = await response.body.text();
      const answerHeaders = new Headers();
      for (const [name, value] of Object.entries(response.headers)) {
        for (const one of Array.isArray(value) ? value : [value]) {
          if (one !== undefined) answerHeaders.append(name, one);
        }
      }
      return { status: response.statusCode, headers: answerHeaders, text };
    },
    agentsWaiting: () => app.services.printing.anyLongPollAsleep(),
    async close() {
      // The server first: a request still waiting (a long-poll) is answered as it closes.
      await app.close();
      await connections.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** A logger that writes every line to memory, for tests that check what is (not) logged. */
export function captureLogs(level = 'info'): { log: Logger; text(): string } {
  const lines: string[] = [];
  const log = pino({ level, base: undefined }, { write: (line: string) => void lines.push(line) });
  return { log, text: () => lines.join('') };
}
