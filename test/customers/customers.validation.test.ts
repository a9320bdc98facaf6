import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  address,
  type Body,
  expectInvalid,
  freshCode,
  invalidBodies,
  s,
  valid,
  withAddress,
  withFields,
  withFreshCode,
} from './payloads.ts';

/**
 * POST /customers against every rule of the customer and address payloads
 * (docs/reference.md), through the real pipeline: 422, `success: false`, the exact `errors`
 * key and Laravel's message; and the values on each bound, accepted.
 */

let server: TestServer;
let token: string;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token(await server.createCompany('Validation Co'), '*');
});
afterAll(() => server.close());

const create = (body: unknown) => server.request('POST', '/customers', { token, body });

describe('POST /customers refuses each broken rule with 422', () => {
  it.each(invalidBodies)('%s', async (_what, body, key, message) => {
    expectInvalid(await create(withFreshCode(body)), key, message);
  });

  it('reports every broken field at once, the message counting the others', async () => {
    const answer = await create({ name: 'ab', addresses: [{ ...address, state: 'S' }] });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({
      name: ['The name field must be at least 3 characters.'],
      type: ['The type field is required.'],
      'addresses.0.state': ['The addresses.0.state field must be 2 characters.'],
    });
    expect(answer.body.message).toBe(
      'The name field must be at least 3 characters. (and 2 more errors)',
    );
  });

  it('an empty body is a 422, not a 500', async () => {
    const answer = await server.request('POST', '/customers', {
      token,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.success).toBe(false);
  });

  it('a JSON array instead of an object is a 422', async () => {
    const answer = await create([valid]);
    expect(answer.status).toBe(422);
    expect(answer.body.success).toBe(false);
  });
});

/** [what, body] at the edge of each bound: accepted. */
const boundaryBodies: [string, Body][] = [
  ['name of exactly 3 characters', withFields({ name: 'Ana' })],
  ['name of exactly 255 characters', withFields({ name: s(255) })],
  ['type J', withFields({ type: 'J' })],
  ['taxvat of exactly 14 digits', withFields({ taxvat: '12345678000190' })],
  ['taxvat with punctuation, 14 digits after it', withFields({ taxvat: '12.345.678/0001-90' })],
  ['telephone of 30 characters', withFields({ telephone: s(30, '1') })],
  ['mobile of exactly 30 characters', withFields({ mobile: s(30, '9') })],
  [
    'email of exactly 255 characters',
    withFields({ email: `${s(64)}@${s(60, 'd')}.${s(60, 'e')}.${s(64, 'f')}.com` }),
  ],
  ['credit_limit of 0', withFields({ credit_limit: 0 })],
  ['credit_limit with 2 decimals', withFields({ credit_limit: 0.01 })],
  ['only the required fields', { name: 'Ana', type: 'F' }],
  [
    'optional fields null',
    withFields({ taxvat: null, email: null, credit_limit: null, mobile: null }),
  ],
  ['no addresses', withFields({ addresses: [] })],
  [
    'address street, district, city of 255',
    withAddress({ street: s(255), district: s(255), city: s(255) }),
  ],
  [
    'address number of 100 and complement of 255',
    withAddress({ number: s(100, '1'), complement: s(255) }),
  ],
  ['address without complement', withAddress({ complement: undefined })],
];

describe('POST /customers accepts values on the bounds', () => {
  it.each(boundaryBodies)('%s', async (_what, body) => {
    const sent: Body = { ...body, code: freshCode() };
    const answer = await create(sent);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.data.name).toBe(sent.name);
  });

  it('code of exactly 100 characters', async () => {
    const answer = await create(withFields({ code: s(100, 'k') }));
    expect(answer.status).toBe(201);
    expect(answer.body.data.code).toBe(s(100, 'k'));
  });

  it('trims surrounding blanks before the rules, as Laravel does', async () => {
    const answer = await create({
      ...withAddress({ city: '  Recife ' }),
      code: `  ${freshCode()} `,
      name: '  Ana  ',
    });
    expect(answer.status).toBe(201);
    expect(answer.body.data.name).toBe('Ana');
    expect(answer.body.data.code).toMatch(/^V-\d+$/);
    expect(answer.body.data.addresses[0].city).toBe('Recife');
  });

  it('stores taxvat digits-only', async () => {
    const answer = await create({ ...valid, code: freshCode(), taxvat: '12.345.678/0001-90' });
    expect(answer.status).toBe(201);
    expect(answer.body.data.taxvat).toBe('12345678000190');
  });
});
