import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJob as queueJob } from '../../server/printing/jobs/create-job.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob } from '../printing/helpers.ts';
import { dispatch, outboxRows, startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * The transactional outbox: an event is written in the transaction of its change, so a
 * rolled-back change sends nothing and a committed one is sent once it commits; the
 * dispatcher is woken by the commit itself (no poll in these tests: it is set to a minute).
 */
describe('webhook outbox', () => {
  let server: TestServer;
  let shop: Tenant;
  const receiver = new Receiver();
  const text = Buffer.from('receipt');

  beforeAll(async () => {
    server = await startWebhookServer({ webhooks: { pollMs: 60_000 } });
    shop = await tenant(server);
    await receiver.start();
    await subscribe(server, shop.token, receiver, ['*']);
  });
  afterAll(async () => {
    await server.close();
    await receiver.stop();
  });

  const queue = () => server.app.services.printing.queue;
  const job = () => ({
    route: 'receipts',
    content_type: 'text/plain' as const,
    content: text,
    copies: 1,
    priority: 5,
    options: {},
  });

  it('sends an event as soon as its change commits, without waiting for a poll', async () => {
    const before = receiver.received.length;
    const started = performance.now();
    const created = await createJob(server, shop.token);
    await receiver.waitFor(before + 1, 2000);
    expect(performance.now() - started).toBeLessThan(2000);
    const { route_online: _routeOnline, ...record } = created;
    // No agent serves its route: print_job.waiting follows, with the reason the created
    // event leaves null (docs/webhooks.md).
    const sent = receiver.events.find((event) => event.data?.id === created.id);
    expect(sent).toMatchObject({
      type: 'print_job.created',
      data: { ...record, wait_reason: null },
    });
  });

  it('sends nothing for a change that rolls back', async () => {
    const rows = await outboxRows(server);
    const { storage } = server.app.services;
    const failing = storage.transaction(storage.db, async (trx) => {
      await queueJob(queue(), trx, shop.companyId, job(), server.clock.now());
      throw new Error('the larger unit of work fails after the job was queued');
    });
    await expect(failing).rejects.toThrow('larger unit of work');
    expect(await outboxRows(server)).toBe(rows);

    // A bulk stock update with one bad item: all or nothing, its events too.
    const warehouse = await shop.warehouse('RB');
    const product = await shop.product();
    const before = await outboxRows(server);
    const bulk = await server.request('PUT', '/inventory/stock/bulk', {
      token: shop.token,
      body: {
        items: [
          { product_id: product.id, warehouse_id: warehouse, quantity: 3 },
          { product_id: 999_999, warehouse_id: warehouse, quantity: 1 },
        ],
      },
    });
    expect(bulk.status).toBe(422);
    expect(await outboxRows(server)).toBe(before);
    const sent = receiver.received.length;
    await dispatch(server);
    expect(receiver.received.length).toBe(sent);
  });

  it('sends the event of a change made inside a larger transaction only once that commits', async () => {
    const storage = server.app.services.storage;
    const sent = receiver.received.length;
    let id = 0;
    await storage.transaction(storage.db, async (trx) => {
      id = (await queueJob(queue(), trx, shop.companyId, job(), server.clock.now())).id;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(receiver.received.length).toBe(sent);
    });
    await receiver.waitFor(sent + 1, 2000);
    expect(receiver.events.at(-1)).toMatchObject({ type: 'print_job.created', data: { id } });
  });

  it("follows the company's subscriptions as they change: created, disabled, enabled, deleted", async () => {
    const other = await tenant(server);
    const listener = await new Receiver().start();
    try {
      const rows = await outboxRows(server);
      await createJob(server, other.token);
      expect(await outboxRows(server)).toBe(rows);

      const endpoint = await subscribe(server, other.token, listener, ['print_job.created']);
      await createJob(server, other.token);
      await listener.waitFor(1);

      await server.request('PATCH', `/webhooks/${endpoint.id}`, {
        token: other.token,
        body: { enabled: false },
      });
      const disabled = await outboxRows(server);
      await createJob(server, other.token);
      expect(await outboxRows(server)).toBe(disabled);

      await server.request('PATCH', `/webhooks/${endpoint.id}`, {
        token: other.token,
        body: { enabled: true },
      });
      await createJob(server, other.token);
      await listener.waitFor(2);

      await server.request('DELETE', `/webhooks/${endpoint.id}`, { token: other.token });
      const deleted = await outboxRows(server);
      await createJob(server, other.token);
      expect(await outboxRows(server)).toBe(deleted);
      expect(listener.unverified).toEqual([]);
    } finally {
      await listener.stop();
    }
  });
});
