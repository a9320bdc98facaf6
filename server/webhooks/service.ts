import type { Logger } from 'pino';
import type { ServerConfig, WebhookPolicy } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import type { ListenConnection } from '../storage/listen-connection.ts';
import type { Clock } from '../time.ts';
import { type Resolve, systemResolve } from './address-policy.ts';
import { DeliveryClient } from './deliver.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import type { EndpointDeps } from './endpoint-input.ts';
import type { WebhookOutbox } from './outbox.ts';
import { pruneDeliveries } from './prune-deliveries.ts';
import type { SecretBox } from './secret-box.ts';
import { SigningKeys } from './signing-keys.ts';

export interface WebhookDeps {
  storage: Storage;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
  box: SecretBox;
  /** The outbox the operations record events in; its dispatcher is nudged after their commits. */
  outbox: WebhookOutbox;
  /** How host names are resolved, at creation and at delivery (tests give their own). */
  resolve?: Resolve;
  /** The whole attempt, answer included; 10 s. */
  timeoutMs?: number;
  /** How often due deliveries are looked for without a nudge; 1 s. */
  pollMs?: number;
  concurrency?: number;
  random?: () => number;
}

/** How often finished deliveries past the retention period are deleted. */
const pruneEveryMs = 3_600_000;

/**
 * Webhooks' long-lived parts: the sealing box, the address policy, the dispatcher and its
 * HTTP client; it starts and stops the outbox's watch of the subscriptions (on PostgreSQL
 * the LISTEN session that keeps the subscription cache correct). The app wiring starts it before the listener and stops it after the listener
 * closed, before the database closes.
 */
export class WebhookService {
  readonly box: SecretBox;
  readonly policy: WebhookPolicy;
  readonly resolve: Resolve;
  readonly dispatcher: WebhookDispatcher;
  /** What the endpoint operations need. */
  readonly endpoints: EndpointDeps;
  private readonly deps: WebhookDeps;
  private readonly client: DeliveryClient;
  private unsubscribe: (() => void) | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;

  constructor(deps: WebhookDeps) {
    this.deps = deps;
    const { storage, config, log, box, outbox } = deps;
    this.box = box;
    this.policy = config.webhooks;
    this.resolve = deps.resolve ?? systemResolve;
    this.endpoints = { storage, outbox, box, policy: this.policy, resolve: this.resolve };
    this.client = new DeliveryClient(this.policy, this.resolve);
    this.dispatcher = new WebhookDispatcher({
      storage,
      outbox,
      clock: deps.clock,
      log,
      policy: this.policy,
      keys: new SigningKeys(storage, box),
      client: this.client,
      timeoutMs: deps.timeoutMs ?? 10_000,
      pollMs: deps.pollMs ?? 1_000,
      concurrency: deps.concurrency ?? 64,
      wallClock: Date.now,
      random: deps.random ?? Math.random,
    });
  }

  /** PostgreSQL: the instance's LISTEN connection, which keeps the endpoints' cache in step (tests cut it). */
  get listener(): ListenConnection | undefined {
    return this.deps.outbox.subscriptions.watch.listener;
  }

  async start(): Promise<void> {
    await this.deps.outbox.start(this.deps.log);
    this.unsubscribe = this.deps.outbox.onRecorded(() => this.dispatcher.nudge());
    this.dispatcher.start();
    this.pruneTimer = setInterval(() => void this.prune(), pruneEveryMs);
    this.pruneTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.pruneTimer);
    this.unsubscribe?.();
    await this.dispatcher.stop();
    await this.deps.outbox.close();
    await this.client.close();
  }

  /** Attempts what is due now and waits until the results are written (tests). */
  runDue(): Promise<void> {
    return this.dispatcher.runDue();
  }

  async prune(): Promise<number> {
    try {
      return await pruneDeliveries(this.deps.storage, this.deps.clock.now());
    } catch (error) {
      this.deps.log.error({ err: error }, 'webhooks: pruning old deliveries failed');
      return 0;
    }
  }
}
