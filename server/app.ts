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
import { bind, type HttpServer } from './http/server.ts';
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

/**
 * The wiring: builds the services once, in dependency order, and hands them to the routes.
 * The port first, so that a busy one fails start-up before the database is opened (or
 * created); then storage (everything reads it), migrations (routes expect the latest
 * schema) and the print queue; only then are requests answered, so none is served before
 * the rest is ready (those that arrive meanwhile wait).
 */
export async function startApp(
  config: ServerConfig,
  options: {
    clock?: Clock;
    log?: Logger;
    storage?: Storage;
    /** Tests shorten the delivery timeout and poll, or resolve names their own way. */
    webhooks?: Pick<WebhookDeps, 'resolve' | 'timeoutMs' | 'pollMs' | 'random'>;
  } = {},
): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel, config.logFormat);
  const http = await bind(config.host, config.port, log, config.http);
  let storage: Storage | undefined;
  let rateLimiter: RateLimit | null = null;
  let enrollmentTries: RateLimit | null = null;
  let signInTries: RateLimit | null = null;
  let signInAddresses: RateLimit | null = null;
  let live: LiveEvents | undefined;
  let authenticator: TokenAuthenticator | undefined;
  let renderer: RenderPool | undefined;
  try {
    storage = options.storage ?? openStorage(config.database, { pgPoolSize: config.pgPoolSize });
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
    renderer = new RenderPool(config.renders);
    // The queue renders template jobs through its port, which templates implements.
    const printing = new PrintingService({
      storage,
      outbox,
      renderer: new TemplateJobRenderer(renderer),
      clock,
      config,
      log,
    });
    const idempotency = new IdempotencyService({ storage, clock, config, log });
    const webhooks = new WebhookService({
      storage,
      outbox,
      clock,
      config,
      log,
      box: new SecretBox(key.key),
      ...options.webhooks,
    });
    // The API's rate limit per token; tries at enrolment codes per address; console sign-in
    // tries per account and per address: all counted in the same store, opened together.
    [rateLimiter, enrollmentTries, signInTries, signInAddresses] = await openRateLimits(
      config,
      [
        config.rateLimitPerMinute,
        enrollmentTriesPerMinute,
        signInTriesPerMinute,
        signInTriesPerAddress,
      ],
      log,
      // PostgreSQL: counted on the storage's pool, the instance's one (docs/deploy.md).
      storage.pool,
    );
    live = new LiveEvents({ storage, printing, log, secretKey: key.key });
    const services: Services = {
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
      enrollmentTries,
      signInTries: { accounts: signInTries, addresses: signInAddresses },
      live,
    };
    // Before answering: leases that ran out while the server was down are failed first
    // (their events are written then), and the dispatcher sends what the outbox holds.
    await webhooks.start();
    await printing.start();
    await idempotency.start();
    authenticator = new TokenAuthenticator(storage, clock);
    services.tokenCache = authenticator;
    // A change of tokens or companies, whoever made it, drops the tokens kept in memory.
    await authenticator.start(log);
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
    const opened = storage;
    const limits = rateLimiter;
    const tries = enrollmentTries;
    const signIns = signInTries;
    const signInsByAddress = signInAddresses;
    const events = live;
    const tokens = authenticator;
    const threads = renderer;
    return {
      url: http.url,
      services,
      http,
      async close() {
        // The listener first: waiting long-polls are woken by its shutdown signal and answer
        // 204; then the sweeps stop, then the dispatcher (attempts in flight are cut and
        // released), and the database closes last.
        events.close();
        await http.close();
        await printing.stop();
        await idempotency.stop();
        await webhooks.stop();
        await threads.close();
        await limits?.close();
        await tries?.close();
        await signIns?.close();
        await signInsByAddress?.close();
        await tokens?.close();
        await opened.close();
      },
    };
  } catch (error) {
    await http.close(0);
    await rateLimiter?.close().catch(() => {});
    await enrollmentTries?.close().catch(() => {});
    await signInTries?.close().catch(() => {});
    await signInAddresses?.close().catch(() => {});
    live?.close();
    await renderer?.close().catch(() => {});
    await authenticator?.close().catch(() => {});
    // The start-up error is the one to report, not a failure to close after it.
    if (storage && !options.storage) await storage.close().catch(() => {});
    throw error;
  }
}
