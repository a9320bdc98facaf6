import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxBodyDepth } from '../../server/http/body.ts';
import { apiRoutes } from '../../server/routes.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

/**
 * A body nested deeper than `maxBodyDepth` is refused where it is read, with a 422 that
 * says so (docs/http-edge-cases.md), on every route and with or without an Idempotency-Key:
 * nothing after the parser walks a deeper value (before, the key's fingerprint overflowed
 * the stack: a 500 at ~3,000 levels).
 */
const nested = (depth: number, leaf = '1') =>
  `${'{"a":['.repeat(depth / 2)}${leaf}${']}'.repeat(depth / 2)}`;

describe.each(databaseKinds)('deep bodies on %s', (kind) => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    token = await server.token(await server.createCompany('Deep Co'), '*');
  });
  afterAll(() => server?.close());

  const post = (path: string, method: string, rawBody: string, key?: string) =>
    server.request(method, path, {
      token,
      rawBody,
      headers: { 'content-type': 'application/json', ...(key && { 'idempotency-key': key }) },
    });

  const keyed = apiRoutes.filter((route) => route.idempotent);

  it.each(keyed.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s with an Idempotency-Key and 100,000 levels → 422, not 500',
    async (_name, route) => {
      const path = route.path.replace(/\{\w+\}/g, '1');
      const answer = await post(path, route.method, nested(100_000), `deep-${route.operationId}`);
      // Refused before the body for some (an unknown job is 404 first); never a 500.
      expect([404, 422]).toContain(answer.status);
      if (answer.status === 422) {
        expect(answer.body).toMatchObject({
          success: false,
          code: 'validation_failed',
          message: `The body must not nest objects and arrays more than ${maxBodyDepth} levels deep.`,
        });
      }
    },
  );

  it('the limit is on the depth, not the size: 64 levels pass, 65 do not', async () => {
    const customer = (depth: number) =>
      `{"name":"Ana Souza","type":"F","extra":${nested(depth - 2)}}`;
    const at = await post('/customers', 'POST', customer(maxBodyDepth), 'deep-ok');
    expect(at.status).toBe(201);
    const past = await post('/customers', 'POST', customer(maxBodyDepth + 2), 'deep-past');
    expect(past.status).toBe(422);
    expect(past.body.errors).toEqual({ body: [past.body.message] });
  });

  it('brackets inside strings, escaped quotes included, are text, not depth', async () => {
    const name = `Ana ${'[{'.repeat(40)} \\" ${'[{'.repeat(40)}`;
    const answer = await post('/customers', 'POST', `{"name":"${name}","type":"F"}`);
    expect(answer.status).toBe(201);
    expect(answer.body.data.name).toBe(JSON.parse(`"${name}"`));
  });
});
