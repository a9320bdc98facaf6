import type { Logger } from 'pino';
import type { ServerConfig } from './config.ts';
import type { LiveEvents } from './console/live-events.ts';
import type { RateLimit } from './http/rate-limit.ts';
import type { IdempotencyService } from './idempotency/service.ts';
import type { PrintingService } from './printing/service.ts';
import type { StockProducts } from './stock/index.ts';
import type { Storage } from './storage/database.ts';
import type { DocumentRenderer } from './templates/render-pool.ts';
import type { Clock } from './time.ts';
import type { WebhookOutbox } from './webhooks/outbox.ts';
import type { WebhookService } from './webhooks/service.ts';

/**
 * What route handlers get to work with, built once by the wiring in app.ts. Handlers take
 * it from their context argument, never from a global.
 */
export interface Services {
  storage: Storage;
  /** The webhook outbox: operations record their events in it, in their own transaction. */
  outbox: WebhookOutbox;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  /** The print queue: long-poll notifier, lease and expiry sweeps, agent identities. */
  printing: PrintingService;
  /** Where templates are rendered: a pool of threads, started by the first render. */
  renderer: DocumentRenderer;
  /** Products as stock reads and holds them (server/stock/stock-products.ts), from products. */
  stockProducts: StockProducts;
  /** Idempotency keys: the stored answers and their sweep. */
  idempotency: IdempotencyService;
  /** Webhook endpoints' policy and secrets, and the dispatcher of deliveries. */
  webhooks: WebhookService;
  /** Tries at enrolment codes, per address (server/enrollments/tries.ts). */
  enrollmentTries: RateLimit | null;
  /** Console sign-in tries, per account and per address (server/console/routes.ts). */
  signInTries?: { accounts: RateLimit | null; addresses: RateLimit | null };
  /** The console's live changes, per company (server/console/live-events.ts). */
  live: LiveEvents;
  /**
   * The tokens kept in memory by this process: a revocation made here drops them at once
   * (other processes' writes are noticed by the cache's own watch).
   */
  tokenCache?: { changed(): void };
}
