import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, keyCount, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, sampleText } from '../printing/helpers.ts';
import { customerBody, customerCount, send } from './send.ts';

/**
 * Idempotency keys as an integrator uses them (docs/http.md, draft-ietf-httpapi-idempotency-
 * key-header-07): the first request runs, a retry with the same key and payload replays the
 * stored answer byte for byte and writes nothing; a failure stores nothing. On SQLite, and
 * on two PostgreSQL instances (the retry goes to the other one).
 */
describe.each(dialects)('idempotency keys on %s', (dialect) => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    ({ one, two } = instances);
  });
  afterAll(() => instances.close());

  const company = async () => {
    const id = await one.createCompany();
    return { id, token: await one.token(id, '*') };
  };

  it('a retry replays the first answer byte for byte, with Idempotent-Replayed, and writes nothing', async () => {
    const { token } = await company();
    const key = randomUUID();
    const first = await send(one, 'POST', '/customers', { token, key, body: customerBody() });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await send(two, 'POST', '/customers', { token, key, body: customerBody() });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('location')).toBe(first.headers.get('location'));
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(await customerCount(one, token)).toBe(1);
    // Without a key the same body is a new customer: the key is what made the retry safe.
    expect((await send(one, 'POST', '/customers', { token, body: customerBody() })).status).toBe(
      201,
    );
    expect(await customerCount(one, token)).toBe(2);
  });

  it('the payload is compared as JSON: key order and white space do not matter', async () => {
    const { token } = await company();
    const key = randomUUID();
    const first = await send(one, 'POST', '/customers', {
      token,
      key,
      body: '{"name": "Mercado Ordem", "type": "F"}',
    });
    expect(first.status).toBe(201);
    const replay = await send(two, 'POST', '/customers', {
      token,
      key,
      body: '{"type":"F",\n  "name":"Mercado Ordem"}',
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await customerCount(one, token)).toBe(1);
  });

  it('the bare key and its structured-field string ("…") are the same key', async () => {
    const { token } = await company();
    const key = `order-${randomUUID()}`;
    const first = await send(one, 'POST', '/customers', { token, key, body: customerBody() });
    const replay = await send(two, 'POST', '/customers', {
      token,
      key: `"${key}"`,
      body: customerBody(),
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  it('a key is scoped to its company and its operation', async () => {
    const a = await company();
    const b = await company();
    const key = randomUUID();
    const forA = await send(one, 'POST', '/customers', {
      token: a.token,
      key,
      body: customerBody(),
    });
    const forB = await send(two, 'POST', '/customers', {
      token: b.token,
      key,
      body: customerBody(),
    });
    expect(forB.status).toBe(201);
    expect(forB.headers.get('idempotent-replayed')).toBeNull();
    expect(forB.body.data.id).not.toBe(forA.body.data.id);
    const product = await send(one, 'POST', '/products', {
      token: a.token,
      key,
      body: {
        code: `P-${key}`,
        name: 'Pão de queijo',
        price: 4.5,
        unit: 'UN',
        manage_stock: false,
      },
    });
    expect(product.status, product.text).toBe(201);
    expect(product.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a request that failed stores nothing: the key may be retried with a corrected body', async () => {
    const { token } = await company();
    const key = randomUUID();
    await send(one, 'POST', '/customers', {
      token,
      body: { name: 'Já Existe', type: 'F', code: 'DUP' },
    });
    // Refused by the handler (the code is taken): a 422 after the request ran.
    const taken = await send(one, 'POST', '/customers', {
      token,
      key,
      body: { name: 'Nova Loja', type: 'F', code: 'DUP' },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe('validation_failed');
    // Refused by the schema, before the handler.
    const invalid = await send(one, 'POST', '/customers', { token, key, body: { type: 'X' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.code).toBe('validation_failed');
    const fixed = await send(two, 'POST', '/customers', {
      token,
      key,
      body: { name: 'Nova Loja', type: 'F', code: 'NEW' },
    });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(await customerCount(one, token)).toBe(2);
  });

  it('print jobs: create, cancel and retry replay their answers, and the queue sees one of each', async () => {
    const { id, token } = await company();
    const agent = await registerAgent(one, id, ['keys']);
    const job = { route: 'keys', content_type: 'text/plain', content_base64: sampleText };
    const key = randomUUID();
    const created = await send(one, 'POST', '/printing/jobs', { token, key, body: job });
    expect(created.status).toBe(201);
    expect(created.body.data.route_online).toBe(true);
    const again = await send(two, 'POST', '/printing/jobs', { token, key, body: job });
    expect(again.text).toBe(created.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const jobId = created.body.data.id;
    const history = await send(one, 'GET', '/printing/history', { token });
    expect(history.body.meta.total).toBe(1);

    const cancelKey = randomUUID();
    const cancelled = await send(one, 'POST', `/printing/jobs/${jobId}/cancel`, {
      token,
      key: cancelKey,
    });
    expect(cancelled.status).toBe(200);
    // The job is no longer queued, yet the retry of the cancel replays its 200.
    const cancelAgain = await send(two, 'POST', `/printing/jobs/${jobId}/cancel`, {
      token,
      key: cancelKey,
    });
    expect(cancelAgain.status).toBe(200);
    expect(cancelAgain.text).toBe(cancelled.text);
    expect((await send(one, 'POST', `/printing/jobs/${jobId}/cancel`, { token })).status).toBe(409);
    // The same key on another job's path is another payload.
    const otherJob = await send(one, 'POST', '/printing/jobs', { token, body: job });
    const crossed = await send(one, 'POST', `/printing/jobs/${otherJob.body.data.id}/cancel`, {
      token,
      key: cancelKey,
    });
    expect(crossed.status).toBe(422);
    expect(crossed.body.code).toBe('idempotency_key_reused');

    const retryKey = randomUUID();
    const retried = await send(one, 'POST', `/printing/jobs/${jobId}/retry`, {
      token,
      key: retryKey,
    });
    expect(retried.status).toBe(200);
    expect(retried.body.data.status).toBe('queued');
    const retriedAgain = await send(two, 'POST', `/printing/jobs/${jobId}/retry`, {
      token,
      key: retryKey,
    });
    expect(retriedAgain.text).toBe(retried.text);
    const detail = await send(one, 'GET', `/printing/jobs/${jobId}`, { token });
    expect(detail.body.data.events.map((e: { to: string }) => e.to)).toEqual([
      'queued',
      'cancelled',
      'queued',
    ]);
    // Queued again under its own (older) id: the agent gets it first.
    expect((await agent.next()).body.data.id).toBe(jobId);
  });

  it('a key lives for the TTL: then it is a new key, and the sweep deletes it', async () => {
    const { token } = await company();
    const key = randomUUID();
    // The bound is proved to the second: the clocks move only when the test says so, however
    // long the machine takes between two requests.
    const at = Date.now();
    one.clock.stop(at);
    two.clock.stop(at);
    const first = await send(one, 'POST', '/customers', {
      token,
      key,
      body: customerBody('Loja Um'),
    });
    expect(first.status).toBe(201);
    const ttl = one.app.services.config.idempotencyTtlSeconds;
    expect(ttl).toBe(24 * 3600);
    // Both instances' clocks: the first answer is replayed until the last second...
    one.clock.advance((ttl - 1) * 1000);
    if (two !== one) two.clock.advance((ttl - 1) * 1000);
    await one.app.services.idempotency.sweep();
    const late = await send(two, 'POST', '/customers', {
      token,
      key,
      body: customerBody('Loja Um'),
    });
    expect(late.headers.get('idempotent-replayed')).toBe('true');
    // ...and after it, the key is free even before the sweep: another body runs.
    one.clock.advance(1000);
    if (two !== one) two.clock.advance(1000);
    const reused = await send(two, 'POST', '/customers', {
      token,
      key,
      body: customerBody('Loja Dois'),
    });
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    expect(await customerCount(one, token)).toBe(2);
    // The sweep removes every key whose time is up (those of the tests before this one too).
    one.clock.advance(ttl * 1000);
    expect(await one.app.services.idempotency.sweep()).toBeGreaterThan(0);
    expect(await keyCount(one)).toBe(0);
  });
});
