import { randomBytes } from 'node:crypto';
import { type App, startApp } from '../server/app.ts';
import { createCompany } from '../server/companies/create-company.ts';
import { countCompanies } from '../server/companies/read-companies.ts';
import { defaultServerConfig, type LogFormat, webhookPolicyOf } from '../server/config.ts';
import { createUser } from '../server/console/create-user.ts';
import { setPassword } from '../server/console/set-password.ts';
import { parseCorsOrigins } from '../server/http/cors.ts';
import { parsePublicUrl } from '../server/http/public-origin.ts';
import { defaultLogFormat } from '../server/log-format.ts';
import { createWarehouse } from '../server/stock/create-warehouse.ts';
import type { Storage } from '../server/storage/database.ts';
import { createToken } from '../server/tokens/create-token.ts';
import { agentPermissions, permissions } from '../shared/permissions.ts';
import { UsageError } from '../shared/usage-error.ts';
import { type DatabaseOptions, environment, print, targetOf } from './options.ts';

export interface ServeOptions extends DatabaseOptions {
  host?: string;
  port?: number;
  rateLimit?: number;
  redisUrl?: string;
  corsOrigin?: string[];
  maxConnections?: number;
  idempotencyTtl?: number;
  holdLimit?: number;
  demo?: boolean;
  webhooksAllowHttp?: boolean;
  webhooksAllowPrivate?: boolean;
  publicUrl?: string;
  trustProxy?: boolean;
  logFormat?: LogFormat;
}

/** `shopdesk serve`: migrates, then serves until SIGINT/SIGTERM (graceful). */
export async function runServer(options: ServeOptions): Promise<void> {
  const env = environment();
  const database = targetOf(options, { mayCreate: true });
  let corsOrigins = options.corsOrigin;
  if (!corsOrigins && env.SHOPDESK_CORS_ORIGIN) {
    try {
      corsOrigins = parseCorsOrigins(env.SHOPDESK_CORS_ORIGIN);
    } catch (error) {
      throw new UsageError(
        `environment variable SHOPDESK_CORS_ORIGIN: ${(error as Error).message}`,
      );
    }
  }
  let publicUrl = options.publicUrl;
  if (!publicUrl && env.SHOPDESK_PUBLIC_URL) {
    try {
      publicUrl = parsePublicUrl(env.SHOPDESK_PUBLIC_URL);
    } catch (error) {
      throw new UsageError(`environment variable SHOPDESK_PUBLIC_URL ${(error as Error).message}`);
    }
  }
  const host = options.host ?? env.SHOPDESK_HOST ?? defaultServerConfig.host;
  const port = options.port ?? env.SHOPDESK_PORT ?? defaultServerConfig.port;
  await buildConsoleIfMissing();
  let app: App;
  try {
    // startApp takes the port before it opens the database: a busy port creates nothing.
    app = await startApp({
      ...defaultServerConfig,
      database,
      host,
      port,
      rateLimitPerMinute:
        options.rateLimit ?? env.SHOPDESK_RATE_LIMIT ?? defaultServerConfig.rateLimitPerMinute,
      redisUrl: options.redisUrl ?? env.SHOPDESK_REDIS_URL,
      corsOrigins: corsOrigins ?? [],
      logLevel: env.SHOPDESK_LOG_LEVEL ?? defaultServerConfig.logLevel,
      // A person at a terminal reads lines; a file, a pipe or a service manager gets JSON.
      logFormat:
        options.logFormat ??
        env.SHOPDESK_LOG_FORMAT ??
        defaultLogFormat(process.stderr.isTTY === true),
      http: {
        ...defaultServerConfig.http,
        maxConnections:
          options.maxConnections ??
          env.SHOPDESK_MAX_CONNECTIONS ??
          defaultServerConfig.http.maxConnections,
      },
      holdSeconds: options.holdLimit ?? defaultServerConfig.holdSeconds,
      idempotencyTtlSeconds:
        options.idempotencyTtl ??
        env.SHOPDESK_IDEMPOTENCY_TTL ??
        defaultServerConfig.idempotencyTtlSeconds,
      testFault: env.SHOPDESK_TEST_FAULT,
      webhooks: webhookPolicyOf(options, env),
      secretKey: env.SHOPDESK_SECRET_KEY,
      publicUrl,
      trustProxy: options.trustProxy ?? env.SHOPDESK_TRUST_PROXY ?? false,
    });
  } catch (error) {
    throw listenError(error, host, port) ?? error;
  }
  const docs = `${app.url}/api/v1/docs`;
  // stdout carries the one line scripts read; the docs address goes to the log, and to the
  // person who ran `npm start` (--demo).
  print(`ShopDesk API listening on ${app.url}/api/v1`);
  app.services.log.info({ url: `${app.url}/api/v1`, docs }, 'listening');
  if (options.demo) {
    print(`API docs (try it out in the browser): ${docs}`);
    print(`Console (open it in the browser): ${app.url}/console/`);
    await seedDemo(app.services.storage);
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    app.services.log.info('shutting down: finishing in-flight requests');
    void app.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * The console is built here when it is missing or older than its sources (a fresh clone's
 * first `npm start`, or after a pull): esbuild is a dev dependency, so an install without it
 * serves the API alone, and the console's pages say how to build them.
 */
async function buildConsoleIfMissing(): Promise<void> {
  const { buildConsole, isConsoleBuilt } = await import('../console/build.ts');
  if (isConsoleBuilt()) return;
  try {
    await buildConsole();
  } catch (error) {
    process.stderr.write(`console not built: ${(error as Error).message}\n`);
  }
}

/** The operator's mistake in words, for the errors of taking the port. */
function listenError(error: unknown, host: string, port: number): UsageError | undefined {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall !== 'listen' && syscall !== 'bind' && syscall !== 'getaddrinfo') return undefined;
  if (code === 'EADDRINUSE') {
    return new UsageError(
      `port ${port} on ${host} is in use; stop what runs there, or choose another with --port`,
      { pointsToHelp: false },
    );
  }
  if (code === 'EACCES') {
    return new UsageError(`no permission to listen on port ${port}; choose one above 1023`, {
      pointsToHelp: false,
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return new UsageError(`--host ${host} is not an address of this machine`, {
      pointsToHelp: false,
    });
  }
  return undefined;
}

/**
 * A fresh database gets a demo company with a warehouse and two tokens, printed this once
 * as shell assignments: the README's commands use them as $TOKEN and $AGENT_TOKEN.
 */
async function seedDemo(storage: Storage): Promise<void> {
  if ((await countCompanies(storage.db)) > 0) {
    print(
      "Tokens are shown only when the database is new; `npx shopdesk token create --company 1 --permissions '*'` issues another.",
    );
    return;
  }
  const companyId = await createCompany(storage.db, 'Demo Shop');
  await createWarehouse(storage.db, { companyId, code: 'MAIN', name: 'Main warehouse' });
  const admin = await createToken(storage.db, {
    companyId,
    permissions: [...permissions],
    name: 'demo: all permissions',
  });
  const agent = await createToken(storage.db, {
    companyId,
    permissions: agentPermissions,
    name: 'demo: print agent',
  });
  // A console owner with a random password, shown this once like the tokens.
  const password = randomBytes(12).toString('base64url');
  const owner = await createUser(storage.db, {
    companyId,
    email: 'owner@demo.example',
    role: 'owner',
  });
  await setPassword(storage, storage.db, owner.user.id, password);
  print('');
  print(`New database: created company ${companyId} "Demo Shop" with warehouse MAIN.`);
  print('Its tokens, shown this once (TOKEN has every permission, AGENT_TOKEN is for a print');
  print("agent). Paste these two lines into the shell you run the README's commands in:");
  print(`TOKEN=${admin.secret}`);
  print(`AGENT_TOKEN=${agent.secret}`);
  print(`Console sign-in: E-mail owner@demo.example, Password ${password}`);
}
