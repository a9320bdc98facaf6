import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects, type Instances, startInstances } from '../helpers/instances.ts';
import type { TestServer } from '../helpers/server.ts';
import { sampleText } from '../printing/helpers.ts';
import { customerBody, customerCount, type RawAnswer, send } from './send.ts';

/**
 * 50 requests with one key at once (on PostgreSQL, half through each of two instances):
 * one write, and every other answer is that write's answer replayed, or 409 while it ran.
 */
describe.each(dialects)('one key, 50 requests at once, on %s', (dialect) => {
  let instances: Instances;
  let one: TestServer;
  let two: TestServer;
  let token: string;

  beforeAll(async () => {
    instances = await startInstances(dialect);
    ({ one, two } = instances);
    token = await one.token(await one.createCompany(), '*');
  });
  afterAll(() => instances.close());

  /** The answers must be one original, replays of it byte for byte, and 409s. */
  function expectOneWrite(answers: RawAnswer[]): RawAnswer {
    const originals = answers.filter(
      (a) => a.status < 300 && a.headers.get('idempotent-replayed') === null,
    );
    expect(originals).toHaveLength(1);
    const original = originals[0]!;
    for (const answer of answers) {
      if (answer.status === 409) {
        expect(answer.body.code).toBe('idempotency_key_in_flight');
      } else {
        expect(answer.status).toBe(original.status);
        expect(answer.text).toBe(original.text);
      }
    }
    return original;
  }

  it('POST /customers', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        send(n % 2 === 0 ? one : two, 'POST', '/customers', { token, key, body: customerBody() }),
      ),
    );
    expectOneWrite(answers);
    expect(await customerCount(one, token)).toBe(1);
    // After the storm, every retry replays.
    const late = await send(two, 'POST', '/customers', { token, key, body: customerBody() });
    expect(late.headers.get('idempotent-replayed')).toBe('true');
  });

  it('POST /printing/jobs', async () => {
    const key = randomUUID();
    const body = { route: 'storm', content_type: 'text/plain', content_base64: sampleText };
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        send(n % 2 === 0 ? one : two, 'POST', '/printing/jobs', { token, key, body }),
      ),
    );
    const original = expectOneWrite(answers);
    expect(original.status).toBe(201);
    const history = await send(one, 'GET', '/printing/history?route=storm', { token });
    expect(history.body.meta.total).toBe(1);
    const detail = await send(two, 'GET', `/printing/jobs/${original.body.data.id}`, { token });
    expect(detail.body.data.events).toHaveLength(1);
  });
});
