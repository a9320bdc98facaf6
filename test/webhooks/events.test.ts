import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { onlineHeartbeats } from '../../server/printing/agents/presence.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import type { TestServer } from '../helpers/server.ts';
import { createJob, registerAgent } from '../printing/helpers.ts';
import { dispatch, outboxRows, startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

/**
 * Each event type, end to end: the change through the API (or the sweep), the delivery to
 * a real receiver verified with the official library, and the payload
 * `{type, timestamp, data}` with the record as the API shows it (docs/webhooks.md).
 */
describe('webhook events', () => {
  let server: TestServer;
  let shop: Tenant;
  let companyId: number;
  let token: string;
  const receiver = new Receiver();

  /** The events that arrived since the mark, after everything due was sent. */
  let mark = 0;
  // biome-ignore lint/suspicious/noExplicitAny: events are read by path.
  async function arrived(): Promise<any[]> {
    await dispatch(server);
    expect(receiver.unverified).toEqual([]);
    const events = receiver.events.slice(mark);
    mark = receiver.events.length;
    return events;
  }

  beforeAll(async () => {
    server = await startWebhookServer();
    shop = await tenant(server);
    companyId = shop.companyId;
    token = shop.token;
    await receiver.start();
    await subscribe(server, token, receiver, ['*']);
  });
  beforeEach(async () => {
    await arrived();
  });
  afterAll(async () => {
    await server.close();
    await receiver.stop();
  });

  it('print_job.created, claimed, printed: the job as GET /printing/jobs/{job} shows it', async () => {
    const agent = await registerAgent(server, companyId);
    await arrived();
    const job = await createJob(server, token, { title: 'Receipt 1' });
    const claimed = await agent.next();
    const printed = await agent.call('POST', `/printing/jobs/${job.id}/confirm`, { printer: 'P' });
    const events = await arrived();
    expect(events.map((e) => e.type)).toEqual([
      'print_job.created',
      'print_job.claimed',
      'print_job.printed',
    ]);
    const { document: _document, ...claimedRecord } = claimed.body.data;
    // The creation's answer adds route_online, which is not part of the job record.
    const { route_online: _routeOnline, ...queuedRecord } = job;
    expect(events[0]).toEqual({
      type: 'print_job.created',
      timestamp: job.created_at,
      data: queuedRecord,
    });
    expect(events[1].data).toEqual(claimedRecord);
    expect(events[2].data).toEqual(printed.body.data);
    const detail = await server.request('GET', `/printing/jobs/${job.id}`, { token });
    const { events: _trail, ...record } = detail.body.data;
    expect(events[2].data).toEqual(record);
    expect(events[2].timestamp).toBe(printed.body.data.updated_at);
  });

  it('print_job.failed, from the agent and from a lease that ran out', async () => {
    const agent = await registerAgent(server, companyId, ['labels']);
    const first = await createJob(server, token, { route: 'labels' });
    await agent.next();
    const failed = await agent.call('POST', `/printing/jobs/${first.id}/error`, {
      message: 'Out of paper',
      code: 'paper',
    });
    const second = await createJob(server, token, { route: 'labels' });
    await agent.next();
    await arrived();
    server.clock.advance((server.app.services.config.leaseSeconds + 1) * 1000);
    await server.app.services.printing.sweep();
    const events = (await arrived()).filter((e) => e.type === 'print_job.failed');
    expect(events.map((e) => e.data.id)).toEqual([second.id]);
    expect(events[0].data.error).toEqual(expect.objectContaining({ code: 'lease_expired' }));
    expect(failed.body.data.error).toEqual({ message: 'Out of paper', code: 'paper' });
  });

  it('print_job.expired, from the sweep', async () => {
    const job = await createJob(server, token, { route: 'nobody', expires_in: 60 });
    await arrived();
    server.clock.advance(61_000);
    await server.app.services.printing.sweep();
    const events = (await arrived()).filter((e) => e.type === 'print_job.expired');
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ id: job.id, status: 'expired' });
  });

  it('print_job.cancelled, from the cancel operation', async () => {
    const job = await createJob(server, token, { route: 'nobody' });
    await arrived();
    const cancelled = await server.request('POST', `/printing/jobs/${job.id}/cancel`, { token });
    expect(cancelled.status).toBe(200);
    const [event] = await arrived();
    expect(event).toEqual({
      type: 'print_job.cancelled',
      timestamp: cancelled.body.data.updated_at,
      data: expect.objectContaining({ id: job.id, status: 'cancelled' }),
    });
  });

  it('print_job.waiting when a job starts waiting: queued while nothing can print it, given back by its agent; once each', async () => {
    const job = await createJob(server, token, { route: 'nobody-yet' });
    const queued = await arrived();
    expect(queued.map((e) => e.type)).toEqual(['print_job.created', 'print_job.waiting']);
    expect(queued[1].data).toMatchObject({
      id: job.id,
      status: 'queued',
      wait_reason: { code: 'no_agent_for_route' },
    });
    // Still waiting, for another reason: no second event (printer.state_changed says that).
    const agent = await registerAgent(server, companyId, ['nobody-yet']);
    await agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'EPSON', state: 'stopped', message: 'Paper out' }],
    });
    expect((await arrived()).filter((e) => e.type === 'print_job.waiting')).toEqual([]);
    await agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'EPSON', state: 'idle' }],
    });
    expect((await agent.next()).body.data.id).toBe(job.id);
    await agent.call('POST', `/printing/jobs/${job.id}/release`, {
      code: 'printer_out_of_paper',
      message: 'printer EPSON is out of paper: Paper out',
    });
    const given = (await arrived()).filter((e) => e.type === 'print_job.waiting');
    expect(given).toHaveLength(1);
    expect(given[0].data).toMatchObject({
      id: job.id,
      status: 'queued',
      wait_reason: { code: 'printer_out_of_paper' },
    });
  });

  it('print_job.held once a job has waited 15 minutes, once per wait; a retry starts a new one', async () => {
    const job = await createJob(server, token, { route: 'held-here', expires_in: 3600 });
    await arrived();
    // Jobs of the tests before wait too: only this one's events are looked at.
    const heldOf = async () =>
      (await arrived()).filter((e) => e.type === 'print_job.held' && e.data.id === job.id);
    const sweptHeld = async () => (await server.app.services.printing.sweep()).held;
    server.clock.advance(14 * 60_000);
    expect(await sweptHeld()).not.toContain(job.id);
    expect(await heldOf()).toEqual([]);
    server.clock.advance(61_000);
    expect(await sweptHeld()).toContain(job.id);
    const held = await heldOf();
    expect(held).toHaveLength(1);
    expect(held[0].data).toMatchObject({ id: job.id, status: 'queued' });
    server.clock.advance(20 * 60_000);
    expect(await sweptHeld()).not.toContain(job.id);
    expect(await heldOf()).toEqual([]);
    // Expired, retried: a new wait, announced again 15 minutes on.
    server.clock.advance(3600_000);
    await server.app.services.printing.sweep();
    await server.request('POST', `/printing/jobs/${job.id}/retry`, { token });
    server.clock.advance(15 * 60_000 + 1000);
    expect(await sweptHeld()).toContain(job.id);
    expect(await heldOf()).toHaveLength(1);
  });

  it('agent.online on registration and on the first heartbeat after agent.offline from the sweep', async () => {
    const agent = await registerAgent(server, companyId, []);
    const [online] = await arrived();
    expect(online.type).toBe('agent.online');
    expect(online.data).toMatchObject({ id: agent.uuid, online: true, hostname: 'till-1' });

    // Heartbeats within the online interval announce nothing.
    await agent.call('POST', '/printing/heartbeat', {});
    expect(await arrived()).toEqual([]);

    const interval = server.app.services.config.heartbeatSeconds * onlineHeartbeats * 1000;
    server.clock.advance(interval + 2000);
    await server.app.services.printing.sweep();
    const offline = (await arrived()).filter((e) => e.data.id === agent.uuid);
    expect(offline.map((e) => e.type)).toEqual(['agent.offline']);
    expect(offline[0].data).toMatchObject({ id: agent.uuid, online: false });
    // Swept once: a second sweep finds it already offline.
    await server.app.services.printing.sweep();
    expect((await arrived()).filter((e) => e.data.id === agent.uuid)).toEqual([]);

    await agent.call('POST', '/printing/heartbeat', {});
    const back = await arrived();
    expect(back.map((e) => e.type)).toEqual(['agent.online']);
    expect(back[0].data).toMatchObject({ id: agent.uuid, online: true });
  });

  it('printer.state_changed for each printer whose reported fields changed, appeared or went away', async () => {
    const agent = await registerAgent(server, companyId, []);
    await arrived();
    await agent.call('POST', '/printing/heartbeat', {
      printers: [{ name: 'EPSON', is_default: true }],
    });
    expect(await arrived()).toEqual([]);
    await agent.call('POST', '/printing/heartbeat', {
      printers: [
        { name: 'EPSON', is_default: false },
        { name: 'ZEBRA', is_default: true },
      ],
    });
    const changed = await arrived();
    expect(changed.map((e) => [e.type, e.data.name])).toEqual([
      ['printer.state_changed', 'EPSON'],
      ['printer.state_changed', 'ZEBRA'],
    ]);
    expect(changed[0].data).toMatchObject({
      printer: { name: 'EPSON', is_default: false },
      previous: { name: 'EPSON', is_default: true },
      agent: { id: agent.uuid },
    });
    expect(changed[1].data).toMatchObject({ previous: null, printer: { name: 'ZEBRA' } });
    // Registering again with fewer printers: the one no longer reported went away.
    const again = await agent.call('POST', '/printing/register', {
      uuid: agent.uuid,
      name: 'Till',
      hostname: 'till-1',
      platform: 'linux',
      version: '0.1.0',
      printers: [{ name: 'ZEBRA', is_default: true }],
    });
    expect(again.status).toBe(200);
    const gone = await arrived();
    expect(gone.map((e) => [e.data.name, e.data.printer])).toEqual([['EPSON', null]]);
  });

  it('stock.changed per balance whose quantity changed, from single and bulk updates', async () => {
    const warehouse = await shop.warehouse('W1');
    const product = await shop.product({ code: 'SKU-1' });
    const other = await shop.product({ code: 'SKU-2' });
    await arrived();
    const put = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token,
      body: { warehouse_id: warehouse, quantity: 5 },
    });
    expect(put.status).toBe(200);
    const [single] = await arrived();
    expect(single).toEqual({
      type: 'stock.changed',
      timestamp: put.body.data.balances[0].updated_at,
      data: {
        product_id: product.id,
        product_code: 'SKU-1',
        ...put.body.data.balances[0],
        previous_quantity: 0,
      },
    });
    const bulk = await server.request('PUT', '/inventory/stock/bulk', {
      token,
      body: {
        items: [
          { product_id: product.id, warehouse_id: warehouse, quantity: 5 },
          { product_code: 'SKU-2', warehouse_code: 'W1', quantity: 2.5, lot_number: 'L1' },
        ],
      },
    });
    expect(bulk.status).toBe(200);
    const events = await arrived();
    // The first item set the balance to what it held: not a change.
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      product_id: other.id,
      product_code: 'SKU-2',
      warehouse_code: 'W1',
      lot_number: 'L1',
      quantity: 2.5,
      previous_quantity: 0,
    });
  });

  it('offer.status_changed, with the offer as the API shows it and its previous status', async () => {
    const customer = await shop.customer();
    const product = await shop.product();
    const created = await server.request('POST', '/offers', {
      token,
      body: { customer_id: customer, items: [{ product_id: product.id, quantity: 1 }] },
    });
    const offerId = created.body.data.id;
    await arrived();
    await server.request('PATCH', `/offers/${offerId}`, { token, body: { notes: 'n' } });
    expect(await arrived()).toEqual([]);
    const sent = await server.request('PATCH', `/offers/${offerId}`, {
      token,
      body: { status: 'sent' },
    });
    const [event] = await arrived();
    expect(event).toEqual({
      type: 'offer.status_changed',
      timestamp: sent.body.data.updated_at,
      data: { ...sent.body.data, previous_status: 'draft' },
    });
  });

  it('sends an endpoint only the types it subscribes to, and an unsubscribed company writes nothing', async () => {
    const only = new Receiver();
    await only.start();
    try {
      const other = await server.createCompany();
      const otherToken = await server.token(other, '*');
      await subscribe(server, otherToken, only, ['print_job.printed']);
      const agent = await registerAgent(server, other, ['only']);
      const job = await createJob(server, otherToken, { route: 'only' });
      await agent.next();
      await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {});
      await dispatch(server);
      expect(only.events.map((e) => e.type)).toEqual(['print_job.printed']);

      const silent = await server.createCompany();
      const silentToken = await server.token(silent, '*');
      const rows = await outboxRows(server);
      const silentAgent = await registerAgent(server, silent, ['silent']);
      const silentJob = await createJob(server, silentToken, { route: 'silent' });
      await silentAgent.next();
      await silentAgent.call('POST', `/printing/jobs/${silentJob.id}/confirm`, {});
      expect(await outboxRows(server)).toBe(rows);
    } finally {
      await only.stop();
    }
  });
});
