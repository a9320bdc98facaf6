import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxEndpointsPerCompany } from '../../shared/webhooks.ts';
import type { TestServer } from '../helpers/server.ts';
import { startWebhookServer, subscribe } from './helpers.ts';
import { Receiver } from './receiver.ts';

const url = 'https://93.184.216.34/hooks';

describe('webhooks: refused requests', () => {
  let server: TestServer;
  let token: string;
  const receiver = new Receiver();

  beforeAll(async () => {
    server = await startWebhookServer();
    token = await server.token(await server.createCompany(), ['webhooks.manage']);
    await receiver.start();
  });
  afterAll(async () => {
    await server.close();
    await receiver.stop();
  });

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
      const answer = await server.request('POST', '/webhooks', { token, body });
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('validation_failed');
      expect(answer.body.errors[field]?.[0]).toContain(message);
    });
  });

  it('refuses a bad PATCH field by field', async () => {
    const endpoint = await subscribe(server, token, receiver, ['*']);
    const answer = await server.request('PATCH', `/webhooks/${endpoint.id}`, {
      token,
      body: { events: [], enabled: 'yes' },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['enabled', 'events']);
  });

  it('answers 404 for an unknown endpoint or delivery', async () => {
    expect((await server.request('GET', '/webhooks/999999', { token })).status).toBe(404);
    expect((await server.request('GET', '/webhooks/abc', { token })).status).toBe(404);
    const endpoint = await subscribe(server, token, receiver, ['*']);
    const retry = await server.request('POST', `/webhooks/${endpoint.id}/deliveries/999999/retry`, {
      token,
    });
    expect(retry.status).toBe(404);
    expect(retry.body.message).toBe('Webhook delivery not found.');
  });

  it('refuses (409) to retry a pending delivery, and to test or retry on a disabled endpoint', async () => {
    receiver.answer = () => ({ status: 500 });
    const endpoint = await subscribe(server, token, receiver, ['*']);
    const queued = await server.request('POST', `/webhooks/${endpoint.id}/test`, { token });
    await server.app.services.webhooks.runDue();
    const pending = await server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${queued.body.data.id}/retry`,
      { token },
    );
    expect(pending.status).toBe(409);
    expect(pending.body.message).toMatch(/is pending: it is tried again at .*Z\.$/);

    await server.request('PATCH', `/webhooks/${endpoint.id}`, { token, body: { enabled: false } });
    const test = await server.request('POST', `/webhooks/${endpoint.id}/test`, { token });
    expect(test.status).toBe(409);
    const retry = await server.request(
      'POST',
      `/webhooks/${endpoint.id}/deliveries/${queued.body.data.id}/retry`,
      { token },
    );
    expect(retry.status).toBe(409);
    expect(retry.body.message).toContain('is disabled');
    receiver.answer = () => ({ status: 204 });
  });

  it(`refuses a company's endpoint past ${maxEndpointsPerCompany}`, async () => {
    const own = await server.token(await server.createCompany(), ['webhooks.manage']);
    for (let i = 0; i < maxEndpointsPerCompany; i++) {
      const answer = await server.request('POST', '/webhooks', {
        token: own,
        body: { url: `${url}/${i}`, events: ['*'] },
      });
      expect(answer.status).toBe(201);
    }
    const over = await server.request('POST', '/webhooks', {
      token: own,
      body: { url, events: ['*'] },
    });
    expect(over.status).toBe(422);
    expect(over.body.errors.url[0]).toContain(`at most ${maxEndpointsPerCompany}`);
  });
});
