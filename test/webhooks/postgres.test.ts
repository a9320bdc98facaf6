import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob } from '../printing/helpers.ts';
import { until } from '../printing/two-instances.ts';
import { dispatch, outboxRows, startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * Webhooks on a real PostgreSQL with two server instances on one database: both dispatch
 * (`FOR UPDATE SKIP LOCKED` and a lease), and no event is sent twice; a change of endpoints
 * on one instance reaches the other's subscription cache through NOTIFY, and without its
 * LISTEN session an instance caches nothing rather than miss a change.
 */

let database: FreshDatabase;
let one: TestServer;
let two: TestServer;
let shop: Tenant;

beforeAll(async () => {
  database = await freshDatabase();
  const target = { kind: 'postgres', url: database.url } as const;
  // A short poll, so that each instance also picks what the other wrote; the real attempt
  // timeout, so that a busy machine does not make an answered attempt count as failed.
  const webhooks = { pollMs: 20, timeoutMs: 10_000 };
  [one, two] = await Promise.all([
    startWebhookServer({ database: target, webhooks }),
    startWebhookServer({ database: target, webhooks }),
  ]);
  shop = await tenant(one);
});

afterAll(async () => {
  await one?.close();
  await two?.close();
  await database?.drop();
});

describe('webhooks on PostgreSQL, two instances', () => {
  it('delivers 1,000 events written through both instances, each exactly once', async () => {
    const receiver = await new Receiver().start();
    try {
      await subscribe(one, shop.token, receiver, ['stock.changed']);
      const warehouse = await shop.warehouse('PG');
      const products = await Promise.all(Array.from({ length: 20 }, () => shop.product()));
      const bulk = (server: TestServer, quantity: number) =>
        server.request('PUT', '/inventory/stock/bulk', {
          token: shop.token,
          body: {
            items: products.flatMap((product) =>
              Array.from({ length: 25 }, (_, lot) => ({
                product_id: product.id,
                warehouse_id: warehouse,
                lot_number: `L${lot}`,
                quantity,
              })),
            ),
          },
        });
      const attemptsBefore = [one, two].map((s) => s.app.services.webhooks.dispatcher.attempts);
      const answers = await Promise.all([bulk(one, 1), bulk(two, 2)]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      await receiver.waitFor(1000, 30_000);
      await Promise.all([dispatch(one), dispatch(two)]);

      expect(receiver.unverified).toEqual([]);
      // Every delivery took one attempt: a second request for an event would be a double send.
      const attempts = await one.app.services.storage.db
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.max('attempts').as('most'))
        .executeTakeFirstOrThrow();
      expect(Number(attempts.most)).toBe(1);
      const ids = receiver.received.map((r) => r.id);
      expect(ids).toHaveLength(1000);
      expect(new Set(ids).size).toBe(1000);
      const statuses = await one.app.services.storage.db
        .selectFrom('webhook_deliveries')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      expect(statuses.map((s) => [s.status, Number(s.n)])).toEqual([['delivered', 1000]]);
      // Both instances took part in the sending.
      const made = [one, two].map(
        (s, i) => s.app.services.webhooks.dispatcher.attempts - attemptsBefore[i]!,
      );
      expect(made[0]! + made[1]!).toBe(1000);
      expect(Math.min(...made)).toBeGreaterThan(0);
    } finally {
      await receiver.stop();
    }
  });

  it("an endpoint created on one instance is seen at once by the other's cache (NOTIFY)", async () => {
    const other = await tenant(one);
    const receiver = await new Receiver().start();
    try {
      // The second instance has read, and cached, that this company takes no event.
      const rows = await outboxRows(two);
      await createJob(two, other.token);
      expect(await outboxRows(two)).toBe(rows);

      await subscribe(one, other.token, receiver, ['print_job.created']);
      // The notice travels with the commit; give it the moment it takes.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const job = await createJob(two, other.token);
      await receiver.waitFor(1);
      expect(receiver.events.map((e) => e.data.id)).toEqual([job.id]);
    } finally {
      await receiver.stop();
    }
  });

  it('without its LISTEN session an instance caches nothing, so no change is missed', async () => {
    const other = await tenant(one);
    const receiver = await new Receiver().start();
    try {
      const listener = two.app.services.webhooks.listener!;
      const pid = listener.backendPid;
      expect(pid).toBeDefined();
      const subscriptions = two.app.services.outbox.subscriptions;
      const look = () =>
        subscriptions.endpointsFor(
          two.app.services.storage.db,
          other.companyId,
          'print_job.created',
        );
      await createJob(two, other.token);
      // Listening: the second look is answered from the cache, without a query.
      expect(look()).toEqual([]);
      await sql`select pg_terminate_backend(${pid})`.execute(one.app.services.storage.db);
      await until('LISTEN lost', () => listener.backendPid !== pid);
      // Not listening (the reconnect waits at least 125 ms): every look reads the endpoints.
      expect(look()).toBeInstanceOf(Promise);
      expect(look()).toBeInstanceOf(Promise);
      // Created while the second instance cannot hear of it.
      await subscribe(one, other.token, receiver, ['print_job.created']);
      const job = await createJob(two, other.token);
      await receiver.waitFor(1);
      expect(receiver.events.map((e) => e.data.id)).toEqual([job.id]);
      await until('LISTEN back', () => listener.backendPid !== undefined);
    } finally {
      await receiver.stop();
    }
  });
});
