import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { customerBody, customerCount, send } from './send.ts';

/**
 * Keys refused (docs/http.md, error codes): a malformed key (400), a key reused with another
 * payload (422 `idempotency_key_reused`), a key whose first request still runs (409
 * `idempotency_key_in_flight`, on this instance or another).
 */
describe.each(dialects)('idempotency keys refused on %s', (dialect) => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let companyId: number;
  let token: string;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    ({ one, two } = instances);
    companyId = await one.createCompany();
    token = await one.token(companyId, '*');
  });
  afterAll(() => instances.close());

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a character beyond ASCII', 'clé-1'],
    ['a control character', 'tab\there'],
    ['an empty structured-field string', '""'],
  ])('a key that is %s → 400 naming the header, and nothing is written', async (_what, key) => {
    const before = await customerCount(one, token);
    const answer = await send(one, 'POST', '/customers', { token, key, body: customerBody() });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ success: false, code: 'bad_request' });
    expect(answer.body.message).toContain('Idempotency-Key');
    expect(await customerCount(one, token)).toBe(before);
  });

  it('255 printable characters, spaces and quotes included, are a key', async () => {
    const key = ` "${randomUUID()}" ~`.padEnd(255, '!');
    const answer = await send(one, 'POST', '/customers', { token, key, body: customerBody() });
    expect(answer.status).toBe(201);
  });

  it('the same key with another body → 422 idempotency_key_reused, and nothing is written', async () => {
    const key = randomUUID();
    const first = await send(one, 'POST', '/customers', { token, key, body: customerBody() });
    expect(first.status).toBe(201);
    const before = await customerCount(one, token);
    for (const server of [one, two]) {
      const other = await send(server, 'POST', '/customers', {
        token,
        key,
        body: customerBody('Outra Loja'),
      });
      expect(other.status).toBe(422);
      expect(other.body).toMatchObject({ success: false, code: 'idempotency_key_reused' });
      expect(other.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await customerCount(one, token)).toBe(before);
  });

  it('routes that take no key ignore the header', async () => {
    const made = await send(one, 'POST', '/customers', { token, body: customerBody() });
    const path = `/customers/${made.body.data.id}`;
    const patched = await send(one, 'PATCH', path, {
      token,
      key: 'not checked here\t',
      body: { name: 'Nome Novo' },
    });
    expect(patched.status).toBe(200);
    expect((await send(one, 'GET', path, { token, key: '' })).status).toBe(200);
  });

  it('a key whose first request is still running → 409 with Retry-After, on either instance; once that request fails, the key runs', async () => {
    const key = randomUUID();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let running!: () => void;
    const started = new Promise<void>((resolve) => {
      running = resolve;
    });
    // A request of this key, mid-way on instance one (inside its transaction), that fails.
    const first = one.app.services.idempotency.once(
      { companyId, operation: 'POST /customers', key },
      'a fingerprint',
      async () => {
        running();
        await held;
        return { answer: 'failed', stored: null };
      },
    );
    await started;
    for (const server of [one, two]) {
      const answer = await send(server, 'POST', '/customers', { token, key, body: customerBody() });
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({ success: false, code: 'idempotency_key_in_flight' });
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    release();
    expect(await first).toEqual({ kind: 'ran', answer: 'failed' });
    const after = await send(two, 'POST', '/customers', { token, key, body: customerBody() });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
  });
});
