import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  address,
  type Body,
  expectInvalid,
  freshCode,
  invalidBodies,
  valid,
  withFreshCode,
} from './payloads.ts';

/**
 * PUT and PATCH against the same rules (PUT validates like create, PATCH only what is
 * sent), and the code, unique per company, through create and update alike.
 */

let server: TestServer;
let token: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token(await server.createCompany('Validation Co'), '*');
  otherToken = await server.token(await server.createCompany('Other Co'), '*');
});
afterAll(() => server.close());

const create = (body: unknown, as = token) =>
  server.request('POST', '/customers', { token: as, body });

describe('PUT validates like create; PATCH only what is sent', () => {
  let id: number;
  beforeAll(async () => {
    const answer = await create({ ...valid, code: freshCode() });
    id = answer.body.data.id;
  });

  it('PUT without the required name and type is a 422 on both', async () => {
    const answer = await server.request('PUT', `/customers/${id}`, {
      token,
      body: { code: 'X' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({
      name: ['The name field is required.'],
      type: ['The type field is required.'],
    });
  });

  it.each(invalidBodies)('PUT refuses %s', async (_what, body, key, message) => {
    const answer = await server.request('PUT', `/customers/${id}`, {
      token,
      body: withFreshCode(body),
    });
    expectInvalid(answer, key, message);
  });

  it('PATCH with only the email is accepted without name or type', async () => {
    const answer = await server.request('PATCH', `/customers/${id}`, {
      token,
      body: { email: 'new@example.com' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.email).toBe('new@example.com');
    expect(answer.body.data.name).toBe(valid.name);
  });

  /** [what, PATCH body, key, message]: the rules still apply to the fields sent. */
  const badPatches: [string, Body, string, string][] = [
    [
      'name of 2 characters',
      { name: 'ab' },
      'name',
      'The name field must be at least 3 characters.',
    ],
    ['type outside F/J', { type: 'Z' }, 'type', 'The selected type is invalid.'],
    [
      'taxvat with letters',
      { taxvat: 'abc' },
      'taxvat',
      'The taxvat field must contain only digits.',
    ],
    [
      'email malformed',
      { email: 'nope' },
      'email',
      'The email field must be a valid email address.',
    ],
    [
      'credit_limit negative',
      { credit_limit: -1 },
      'credit_limit',
      'The credit limit field must be at least 0.',
    ],
    [
      'address state wrong',
      { addresses: [{ ...address, state: 'S' }] },
      'addresses.0.state',
      'The addresses.0.state field must be 2 characters.',
    ],
  ];
  it.each(badPatches)('PATCH refuses %s', async (_what, body, key, message) => {
    const answer = await server.request('PATCH', `/customers/${id}`, { token, body });
    expectInvalid(answer, key, message);
    const after = await server.request('GET', `/customers/${id}`, { token });
    expect(after.body.data.email).toBe('new@example.com');
  });
});

describe('code is unique per company', () => {
  it('a second customer with the same code in the same company is a 422', async () => {
    const code = freshCode();
    expect((await create({ ...valid, code })).status).toBe(201);
    expectInvalid(await create({ ...valid, code }), 'code', 'The code has already been taken.');
  });

  it('the same code is free in another company', async () => {
    const code = freshCode();
    expect((await create({ ...valid, code })).status).toBe(201);
    const answer = await create({ ...valid, code }, otherToken);
    expect(answer.status).toBe(201);
    expect(answer.body.data.code).toBe(code);
  });

  it('PUT and PATCH cannot take another customer code, but may keep their own', async () => {
    const taken = freshCode();
    await create({ ...valid, code: taken });
    const mine = freshCode();
    const { body } = await create({ ...valid, code: mine });
    const id = body.data.id;
    const put = await server.request('PUT', `/customers/${id}`, {
      token,
      body: { ...valid, code: taken },
    });
    expectInvalid(put, 'code', 'The code has already been taken.');
    const patch = await server.request('PATCH', `/customers/${id}`, {
      token,
      body: { code: taken },
    });
    expectInvalid(patch, 'code', 'The code has already been taken.');
    const keep = await server.request('PUT', `/customers/${id}`, {
      token,
      body: { ...valid, code: mine, name: 'Renamed' },
    });
    expect(keep.status).toBe(200);
    expect(keep.body.data.code).toBe(mine);
  });
});
