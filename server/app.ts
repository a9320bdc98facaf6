import pino, { type Logger } from 'pino';
import type { LogFormat, ServerConfig } from './config.ts';
import { LiveEvents } from './console/live-events.ts';
import { consolePages } from './console/pages.ts';
import { signInTriesPerAddress, signInTriesPerMinute } from './console/routes.ts';
import { SessionAuthenticator } from './console/session-caller.ts';
import { consoleSessionHook } from './console/session-hook.ts';
import { enrollmentTriesPerMinute } from './enrollments/tries.ts';
import type { RateLimit } from './http/rate-limit.ts';
import { Router } from './http/router.ts';
import { type BoundServer, bind, type HttpServer } from './http/server.ts';
import { openRateLimits } from './http/shared-rate-limit.ts';
import { idempotencyHook } from './idempotency/idempotency-hook.ts';
import { IdempotencyService } from './idempotency/service.ts';
import { humanDestination } from './log-format.ts';
import { agentIdentityHook } from './printing/agents/agent-hook.ts';
import { PrintingService } from './printing/service.ts';
import { stockProducts } from './products/index.ts';
import { allRoutes } from './routes.ts';
import type { Services } from './services.ts';
import { openStorage, type Storage } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { RenderPool } from './templates/render-pool.ts';
import { TemplateJobRenderer } from './templates/template-job-renderer.ts';
import { type Clock, systemClock } from './time.ts';
import { TokenAuthenticator } from './tokens/authenticate.ts';
import { WebhookOutbox } from './webhooks/outbox.ts';
import { SecretBox } from './webhooks/secret-box.ts';
import { resolveSecretKey } from './webhooks/secret-key.ts';
import { type WebhookDeps, WebhookService } from './webhooks/service.ts';

export interface App {
  url: string;
  services: Services;
  http: HttpServer;
  /** Graceful: stops accepting, finishes in-flight requests, then closes the database. */
  close(): Promise<void>;
}

export function createLogger(level: string, format: LogFormat = 'json'): Logger {
  // Logs go to stderr: stdout carries what the CLI prints for scripts (the URL, ids, tokens).
  const destination =
    format === 'human'
      ? humanDestination((text) => process.stderr.write(text))
      : pino.destination(2);
  return pino({ level, base: undefined, redact: ['req.headers.authorization'] }, destination);
}

type StartOptions = {
  clock?: Clock;
  log?: Logger;
  storage?: Storage;
  /** Tests shorten the delivery timeout and poll, or resolve names their own way. */
  webhooks?: Pick<WebhookDeps, 'resolve' | 'timeoutMs' | 'pollMs' | 'random'>;
  /** Tests lengthen the console's poll, to see what wakes its streams without it. */
  live?: { pollMs?: number };
};

/**
 * What start-up opened, as far as it got: closed in order by `close` (a clean stop) or by
 * `abandon` (a start-up that failed half way).
 */
interface Opened {
  storage?: Storage;
  /** The rate limit per token; enrolment tries; sign-in tries per account and per address. */
  limits: (RateLimit | null)[];
  live?: LiveEvents;
  authenticator?: TokenAuthenticator;
  renderer?: RenderPool;
  printing?: PrintingService;
  idempotency?: IdempotencyService;
  webhooks?: WebhookService;
}

/**
 * The wiring: builds the services once, in dependency order, and hands them to the routes.
 * The port first, so that a busy one fails start-up before the database is opened (or
 * created); then storage (everything reads it), migrations (routes expect the latest
 * schema) and the print queue; only then are requests answered, so none is served before
 * the rest is ready (those that arrive meanwhile wait).
 */
export async function startApp(config: ServerConfig, options: StartOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel, config.logFormat);
  const http = await bind(config.host, config.port, log, config.http);
  const opened: Opened = { limits: [] };
  try {
    const services = await openServices(config, options, log, opened);
    // Before answering: leases that ran out while the server was down are failed first
    // (their events are written then), and the dispatcher sends what the outbox holds.
    await services.webhooks.start();
    await services.printing.start();
    await services.idempotency.start();
    const authenticator = new TokenAuthenticator(services.storage, services.clock);
    opened.authenticator = authenticator;
    services.tokenCache = authenticator;
    // A change of tokens or companies, whoever made it, drops the tokens kept in memory.
    await authenticator.start(log);
    serveApi(http, services, authenticator, opened.limits[0] ?? null);
    return { url: http.url, services, http, close: () => closeApp(http, opened) };
  } catch (error) {
    await http.close(0);
    await abandon(opened, options.storage === undefined);
    throw error;
  }
}

/** Storage, migrations, the secret key and every service, each noted in `opened` as made. */
async function openServices(
  config: ServerConfig,
  options: StartOptions,
  log: Logger,
  opened: Opened,
): Promise<Services> {
  const storage =
    options.storage ?? openStorage(config.database, { pgPoolSize: config.pgPoolSize });
  opened.storage = storage;
  await migrateToLatest(storage);
  const clock = options.clock ?? systemClock;
  const key = resolveSecretKey(config.secretKey, config.database);
  if (key.source === 'generated') {
    log.warn(
      { file: key.file },
      'generated a new secret key (it seals webhook secrets): keep it with the data, and give every instance the same one',
    );
  }
  // The outbox every operation records its webhook events in, whichever domain it is in.
  const outbox = new WebhookOutbox(storage);
  // Its threads start with the first render, not here.
  const renderer = new RenderPool(config.renders);
  opened.renderer = renderer;
  // The queue renders template jobs through its port, which templates implements.
  const printing = new PrintingService({
    storage,
    outbox,
    renderer: new TemplateJobRenderer(renderer),
    clock,
    config,
    log,
  });
  opened.printing = printing;
  const idempotency = new IdempotencyService({ storage, clock, config, log });
  opened.idempotency = idempotency;
  const box = new SecretBox(key.key);
  const webhooks = new WebhookService({
    storage,
    outbox,
    clock,
    config,
    log,
    box,
    ...options.webhooks,
  });
  opened.webhooks = webhooks;
  // The API's rate limit per token; tries at enrolment codes per address; console sign-in
  // tries per account and per address: all counted in the same store, opened together.
  // PostgreSQL: counted on the storage's pool, the instance's one (docs/deploy.md).
  const perMinute = [
    config.rateLimitPerMinute,
    enrollmentTriesPerMinute,
    signInTriesPerMinute,
    signInTriesPerAddress,
  ];
  opened.limits = await openRateLimits(config, perMinute, log, storage.pool);
  const [, enrollmentTries, signInTries, signInAddresses] = opened.limits;
  const live = new LiveEvents({
    storage,
    printing,
    log,
    secretKey: key.key,
    pollMs: options.live?.pollMs,
  });
  opened.live = live;
  await live.start();
  return {
    storage,
    outbox,
    renderer,
    clock,
    config,
    log,
    printing,
    stockProducts,
    idempotency,
    webhooks,
    enrollmentTries: enrollmentTries ?? null,
    signInTries: { accounts: signInTries ?? null, addresses: signInAddresses ?? null },
    live,
  };
}

/** The API and the console's pages on the bound port, with the hooks routes declare. */
function serveApi(
  http: BoundServer,
  services: Services,
  authenticator: TokenAuthenticator,
  rateLimiter: RateLimit | null,
): void {
  const { config, storage, clock, log } = services;
  const links = { publicUrl: config.publicUrl, trustProxy: config.trustProxy };
  // The hooks each route's declaration installs, run in this order at every stage: the
  // console's session first (its CSRF check comes before anything else is read), then the
  // idempotency key, whose transaction the calling agent is looked up in.
  const hooks = [
    consoleSessionHook(new SessionAuthenticator(storage, clock), links),
    idempotencyHook,
    agentIdentityHook,
  ];
  http.serve({
    router: new Router('/api/v1', allRoutes, hooks),
    authenticator,
    rateLimiter,
    services,
    log,
    corsOrigins: config.corsOrigins,
    links,
    pages: consolePages(),
  });
}

/**
 * A clean stop. The listener first: waiting long-polls are woken by its shutdown signal and
 * answer 204; then the sweeps stop, then the dispatcher (attempts in flight are cut and
 * released), and the database closes last.
 */
async function closeApp(http: HttpServer, opened: Opened): Promise<void> {
  await opened.live?.close();
  await http.close();
  await opened.printing?.stop();
  await opened.idempotency?.stop();
  await opened.webhooks?.stop();
  await opened.renderer?.close();
  for (const limit of opened.limits) await limit?.close();
  await opened.authenticator?.close();
  await opened.storage?.close();
}

/** A start-up that failed: what it opened is closed, quietly (its error is the one to report). */
async function abandon(opened: Opened, ownStorage: boolean): Promise<void> {
  for (const limit of opened.limits) await limit?.close().catch(() => {});
  await opened.live?.close().catch(() => {});
  await opened.renderer?.close().catch(() => {});
  await opened.authenticator?.close().catch(() => {});
  if (ownStorage) await opened.storage?.close().catch(() => {});
}
