import { describe, expect, it } from 'vitest';
import { deliveriesOf, dispatch, subscribe, webhookShopOfSuite } from './helpers.ts';

/** Endpoints as an integrator manages them, and the test event (docs/webhooks.md). */
describe('webhook endpoints', () => {
  const shop = webhookShopOfSuite();

  it('creates an endpoint: 201, Location, and a whsec_ secret of 32 random bytes shown once', async () => {
    const answer = await shop.server.request('POST', '/webhooks', {
      token: shop.token,
      body: {
        url: `${shop.receiver.url}#ignored`,
        events: ['print_job.printed', 'print_job.failed'],
        description: 'ERP',
      },
    });
    expect(answer.status).toBe(201);
    const endpoint = answer.body.data;
    expect(answer.headers.get('location')).toBe(`${shop.server.api}/webhooks/${endpoint.id}`);
    expect(endpoint).toMatchObject({
      url: shop.receiver.url,
      description: 'ERP',
      events: ['print_job.printed', 'print_job.failed'],
      enabled: true,
      disabled_reason: null,
      failing_since: null,
      previous_secret_expires_at: null,
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);

    const read = await shop.server.request('GET', `/webhooks/${endpoint.id}`, {
      token: shop.token,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).not.toHaveProperty('secret');
    expect(read.body.data).toEqual({ ...endpoint, secret: undefined });
    const list = await shop.server.request('GET', '/webhooks', { token: shop.token });
    expect(list.body.data.map((e: { id: number }) => e.id)).toContain(endpoint.id);
  });

  it('changes what is sent and leaves the rest', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, ['stock.changed']);
    const patched = await shop.server.request('PATCH', `/webhooks/${created.id}`, {
      token: shop.token,
      body: { events: ['offer.status_changed', 'agent.online'] },
    });
    expect(patched.status).toBe(200);
    // Stored in the registry's order, so equal lists read equal.
    expect(patched.body.data.events).toEqual(['agent.online', 'offer.status_changed']);
    expect(patched.body.data.url).toBe(shop.receiver.url);

    const disabled = await shop.server.request('PATCH', `/webhooks/${created.id}`, {
      token: shop.token,
      body: { enabled: false },
    });
    expect(disabled.body.data).toMatchObject({
      enabled: false,
      disabled_reason: 'Disabled by its owner.',
    });
    expect(disabled.body.data.disabled_at).toMatch(/Z$/);
    const enabled = await shop.server.request('PATCH', `/webhooks/${created.id}`, {
      token: shop.token,
      body: { enabled: true },
    });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      disabled_at: null,
    });
  });

  it('deletes an endpoint and its deliveries', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, ['stock.changed']);
    await shop.server.request('POST', `/webhooks/${created.id}/test`, { token: shop.token });
    const deleted = await shop.server.request('DELETE', `/webhooks/${created.id}`, {
      token: shop.token,
    });
    expect(deleted.status).toBe(204);
    expect(
      (await shop.server.request('GET', `/webhooks/${created.id}`, { token: shop.token })).status,
    ).toBe(404);
    const left = await shop.server.app.services.storage.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('endpoint_id', '=', created.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('sends webhook.test, signed by Standard Webhooks, and shows the delivery', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, [
      'offer.status_changed',
    ]);
    const before = shop.receiver.received.length;
    shop.receiver.answer = () => ({ status: 200, body: 'thanks' });
    const queued = await shop.server.request('POST', `/webhooks/${created.id}/test`, {
      token: shop.token,
    });
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
    });
    expect(queued.body.data.event_id).toMatch(/^msg_[0-9a-f]{32}$/);
    await shop.receiver.waitFor(before + 1);
    const got = shop.receiver.received.at(-1)!;
    expect(got.verifiedBy).toEqual([shop.receiver.secrets.indexOf(created.secret)]);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.id).toBe(queued.body.data.event_id);
    expect(Math.abs(Number(got.timestamp) - Date.now() / 1000)).toBeLessThan(5);
    expect(got.event).toMatchObject({
      type: 'webhook.test',
      data: { id: created.id, url: shop.receiver.url },
    });
    expect(got.event.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Object.keys(got.event)).toEqual(['type', 'timestamp', 'data']);

    await dispatch(shop.server);
    const [delivery] = await deliveriesOf(shop.server, shop.token, created.id);
    expect(delivery).toMatchObject({
      id: queued.body.data.id,
      event_id: got.id,
      type: 'webhook.test',
      status: 'delivered',
      attempts: 1,
      next_attempt_at: null,
      last_response_status: 200,
      last_response_body: 'thanks',
      last_error: null,
    });
    expect(delivery!.delivered_at).toMatch(/Z$/);
    shop.receiver.answer = () => ({ status: 204 });
  });

  it('keeps the first 1 KiB of an answer', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, [
      'offer.status_changed',
    ]);
    shop.receiver.answer = () => ({ status: 200, body: 'é'.repeat(2000) });
    const before = shop.receiver.received.length;
    await shop.server.request('POST', `/webhooks/${created.id}/test`, { token: shop.token });
    await shop.receiver.waitFor(before + 1);
    await dispatch(shop.server);
    const [delivery] = await deliveriesOf(shop.server, shop.token, created.id);
    const body = delivery!.last_response_body ?? '';
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024);
    expect(body.startsWith('é'.repeat(500))).toBe(true);
    shop.receiver.answer = () => ({ status: 204 });
  });

  it('sends a delivered one again on retry, with the same webhook-id', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, [
      'offer.status_changed',
    ]);
    const before = shop.receiver.received.length;
    const queued = await shop.server.request('POST', `/webhooks/${created.id}/test`, {
      token: shop.token,
    });
    await shop.receiver.waitFor(before + 1);
    await dispatch(shop.server);
    const retried = await shop.server.request(
      'POST',
      `/webhooks/${created.id}/deliveries/${queued.body.data.id}/retry`,
      { token: shop.token },
    );
    expect(retried.status).toBe(202);
    expect(retried.body.data).toMatchObject({ status: 'pending', attempts: 1 });
    await shop.receiver.waitFor(before + 2);
    const [first, second] = shop.receiver.received.slice(before);
    expect(second!.id).toBe(first!.id);
    expect(second!.body).toBe(first!.body);
    await dispatch(shop.server);
    const [delivery] = await deliveriesOf(shop.server, shop.token, created.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('lists deliveries newest first, paginated and filtered by status', async () => {
    const created = await subscribe(shop.server, shop.token, shop.receiver, [
      'offer.status_changed',
    ]);
    for (let i = 0; i < 3; i++) {
      await shop.server.request('POST', `/webhooks/${created.id}/test`, { token: shop.token });
    }
    await dispatch(shop.server);
    const page = await shop.server.request(
      'GET',
      `/webhooks/${created.id}/deliveries?per_page=2&status=delivered`,
      { token: shop.token },
    );
    expect(page.status).toBe(200);
    expect(page.body.meta).toMatchObject({ total: 3, per_page: 2, last_page: 2 });
    const ids = page.body.data.map((d: { id: number }) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(page.body.links.next).toContain('status=delivered');
  });
});
