import pino, { type Logger } from 'pino';
import type { ServerConfig } from './config.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { Router } from './http/router.ts';
import { type HttpServer, listen } from './http/server.ts';
import { PrintingService } from './printing/service.ts';
import { allRoutes } from './routes.ts';
import type { Services } from './services.ts';
import { openStorage, type Storage } from './storage/database.ts';
import { migrateToLatest } from './storage/migrate.ts';
import { type Clock, systemClock } from './time.ts';
import { TokenAuthenticator } from './tokens/authenticate.ts';
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

export function createLogger(level: string): Logger {
  // Logs go to stderr: stdout carries what the CLI prints for scripts (the URL, ids, tokens).
  return pino(
    { level, base: undefined, redact: ['req.headers.authorization'] },
    pino.destination(2),
  );
}

/**
 * The wiring: builds the services once, in dependency order, and hands them to the routes.
 * Storage first (everything reads it), then migrations (routes expect the latest schema),
 * then the HTTP listener last, so no request arrives before the rest is ready.
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
  const log = options.log ?? createLogger(config.logLevel);
  const storage = options.storage ?? openStorage(config.database);
  await migrateToLatest(storage);
  const clock = options.clock ?? systemClock;
  const key = resolveSecretKey(config.secretKey, config.database);
  if (key.source === 'generated') {
    log.warn(
      { file: key.file },
      'generated a new secret key (it seals webhook secrets): keep it with the data, and give every instance the same one',
    );
  }
  const printing = new PrintingService({ storage, clock, config, log });
  const webhooks = new WebhookService({
    storage,
    clock,
    config,
    log,
    box: new SecretBox(key.key),
    ...options.webhooks,
  });
  const services: Services = { storage, clock, config, log, printing, webhooks };
  // Before the listener: leases that ran out while the server was down are failed first
  // (their events are written then), and the dispatcher sends what the outbox holds.
  await webhooks.start();
  await printing.start();
  const http = await listen(
    {
      router: new Router('/api/v1', allRoutes),
      authenticator: new TokenAuthenticator(storage, clock),
      rateLimiter:
        config.rateLimitPerMinute > 0 ? new RateLimiter(config.rateLimitPerMinute) : null,
      services,
      log,
    },
    config.host,
    config.port,
  );
  return {
    url: http.url,
    services,
    http,
    async close() {
      // The listener first: waiting long-polls are woken by its shutdown signal and answer
      // 204; then the sweeps stop, then the dispatcher (attempts in flight are cut and
      // released), and the database closes last.
      await http.close();
      await printing.stop();
      await webhooks.stop();
      await storage.close();
    },
  };
}
