import { describe, expect, it } from 'vitest';
import { maxEndpointsPerCompany } from '../../shared/webhooks.ts';
import { subscribe, webhookShopOfSuite } from './helpers.ts';

const url = 'https://93.184.216.34/hooks';

describe('webhooks: refused requests', () => {
  const shop = webhookShopOfSuite();

  describe.each([
    [{ events: ['*'] }, 'url', 'The url field is required.'],
    [{ url: 'not a url', events: ['*'] }, 'url', 'The url field must be a valid URL.'],
    [{ url: `${url}/${'x'.repeat(2000)}`, events: ['*'] }, 'url', 'must not be greater than 2000'],
    [{ url }, 'events', 'The events field is required.'],
    [{ url, events: [] }, 'events', 'The events field must have at least 1 item.'],
    [{ url, events: ['print_job.lost'] }, 'events.0', 'The selected events.0 is invalid.'],
    [{ url, events: ['webhook.test'] }, 'events.0', 'The selected events.0 is invalid.'],
    [{ url, events: ['*', 'stock.changed'] }, 'events', 'must be ["*"] alone'],
    [{ url, events: ['stock.changed', 'stock.changed'] }, 'events', 'has a duplicate value'],
    [
      { url, events: ['*'], description: 'x'.repeat(256) },
      'description',
      'not be greater than 255',
    ],
  ])('POST /webhooks %j', (body, field, message) => {
    it(`is 422 on ${field}`, async () => {
      const answer = await shop.server.request('POST', '/webhooks', { token: shop.token, body });
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors[field]?.[0]).toContain(message);
    });
  });

  it('refuses a bad PATCH field by field', async () => {
    const endpoint = await subscribe(shop.server, shop.token, shop.receiver, ['*']);
    const answer = await shop.server.request('PATCH', `/webhooks/${endpoint.id}`, {
      token: shop.token,
      body: { events: [], enabled: 'yes' },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['enabled', 'events']);
  });

  it('answers 404 for an unknown endpoint or delivery', async () => {
    expect(
      (await shop.server.request('GET', '/webhooks/999999', { token: shop.token })).status,
    ).toBe(404);
    expect((await shop.server.request('GET', '/webhooks/abc', { token: shop.token })).status).toBe(
      404,
    );
    const endpoint = await subscribe(shop.server, shop.token, shop.receiver, ['*']);
    const retry = await shop.server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/999999/retry`,
      {
        token: shop.token,
      },
    );
    expect(retry.status).toBe(404);
    expect(retry.body.message).toBe('Webhook delivery not found.');
  });

  it('refuses (409) to retry a pending delivery, and to test or retry on a disabled endpoint', async () => {
    shop.receiver.answer = () => ({ status: 500 });
    const endpoint = await subscribe(shop.server, shop.token, shop.receiver, ['*']);
    const queued = await shop.server.request('POST', `/webhooks/${endpoint.id}/test`, {
      token: shop.token,
    });
    await shop.server.app.services.webhooks.runDue();
    const pending = await shop.server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${queued.body.data.id}/retry`,
      { token: shop.token },
    );
    expect(pending.status).toBe(409);
    expect(pending.body.message).toMatch(/is pending: it is tried again at .*Z\.$/);

    await shop.server.request('PATCH', `/webhooks/${endpoint.id}`, {
      token: shop.token,
      body: { enabled: false },
    });
    const test = await shop.server.request('POST', `/webhooks/${endpoint.id}/test`, {
      token: shop.token,
    });
    expect(test.status).toBe(409);
    const retry = await shop.server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${queued.body.data.id}/retry`,
      { token: shop.token },
    );
    expect(retry.status).toBe(409);
    expect(retry.body.message).toContain('is disabled');
    shop.receiver.answer = () => ({ status: 204 });
  });

  it(`refuses a company's endpoint past ${maxEndpointsPerCompany}`, async () => {
    const own = await shop.server.token(await shop.server.createCompany(), ['webhooks.manage']);
    for (let i = 0; i < maxEndpointsPerCompany; i++) {
      const answer = await shop.server.request('POST', '/webhooks', {
        token: own,
        body: { url: `${url}/${i}`, events: ['*'] },
      });
      expect(answer.status).toBe(201);
    }
    const over = await shop.server.request('POST', '/webhooks', {
      token: own,
      body: { url, events: ['*'] },
    });
    expect(over.status).toBe(422);
    expect(over.body.errors.url[0]).toContain(`at most ${maxEndpointsPerCompany}`);
  });
});
