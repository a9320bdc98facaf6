import type PgModule from 'pg';
import type { Logger } from 'pino';
import { type Subscriptions, subscriptionsChannel } from './subscriptions.ts';

/**
 * PostgreSQL: one connection of this instance, outside the pool, in `LISTEN
 * shopdesk_webhooks`. Each notice (a company id, sent with the commit of a change of that
 * company's endpoints) drops the company's cached subscriptions. While the connection is
 * down, notices would be missed, so the cache is off (`setListening(false)`: every check
 * reads the endpoints) until it is back; it is opened again with backoff (250 ms doubling
 * to 10 s, with jitter), as the print queue's LISTEN connection is.
 */
export class SubscriptionListener {
  private readonly connect: () => PgModule.Client;
  private readonly subscriptions: Subscriptions;
  private readonly log: Logger;
  private client: PgModule.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(connect: () => PgModule.Client, subscriptions: Subscriptions, log: Logger) {
    this.connect = connect;
    this.subscriptions = subscriptions;
    this.log = log;
  }

  /** The backend process id of the LISTEN connection (tests terminate it). */
  get backendPid(): number | undefined {
    return (this.client as { processID?: number } | undefined)?.processID;
  }

  async start(): Promise<void> {
    await this.open();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.subscriptions.setListening(false);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    const client = this.connect();
    this.client = client;
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = undefined;
      this.subscriptions.setListening(false);
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.log.warn({ err: error }, 'webhooks: LISTEN connection to PostgreSQL lost; reconnecting');
      const delay = Math.min(10_000, 250 * 2 ** Math.min(this.failures, 20));
      this.failures += 1;
      this.retry = setTimeout(() => void this.open(), delay * (0.5 + Math.random() / 2));
      this.retry.unref();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel !== subscriptionsChannel) return;
      const companyId = Number(message.payload);
      if (Number.isInteger(companyId)) this.subscriptions.changed(companyId);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${subscriptionsChannel}`);
    } catch (error) {
      onLost(error);
      return;
    }
    if (lost) return;
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    // From now on every change is heard: the cache may be trusted (it starts empty).
    this.subscriptions.setListening(true);
  }
}
