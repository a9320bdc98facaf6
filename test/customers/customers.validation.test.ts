import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Every rule of the customer and address payloads (docs/reference.md), checked through the
 * real pipeline:
 * 422, `success: false`, the exact `errors` key and Laravel's message.
 */

const s = (n: number, char = 'a') => char.repeat(n);

const address = {
  zipcode: '01310100',
  street: 'Avenida Paulista',
  district: 'Bela Vista',
  city: 'São Paulo',
  state: 'SP',
  number: '1000',
  complement: 'Sala 1',
};

const valid = {
  name: 'Maria Silva',
  type: 'F',
  code: 'C-1',
  taxvat: '12345678901',
  telephone: '1133334444',
  mobile: '11999998888',
  email: 'maria@example.com',
  credit_limit: 1500.5,
  addresses: [address],
};

type Body = Record<string, unknown>;

/** The valid body with some fields changed; `undefined` removes a field. */
function withFields(fields: Body, base: Body = valid): Body {
  const body: Body = { ...base };
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) delete body[key];
    else body[key] = value;
  }
  return body;
}

function withAddress(fields: Body): Body {
  return { ...valid, addresses: [withFields(fields, address)] };
}

let server: TestServer;
let token: string;
let otherToken: string;
let codeCounter = 0;
/** Each accepted create needs its own code: codes are unique per company. */
const freshCode = () => `V-${++codeCounter}`;
/** Keeps a code the case is about; gives the valid code a fresh value. */
const withFreshCode = (body: Body): Body =>
  body.code === valid.code ? { ...body, code: freshCode() } : body;

beforeAll(async () => {
  server = await startTestServer();
  token = await server.token(await server.createCompany('Validation Co'), '*');
  otherToken = await server.token(await server.createCompany('Other Co'), '*');
});
afterAll(() => server.close());

const create = (body: unknown, as = token) =>
  server.request('POST', '/customers', { token: as, body });

function expectInvalid(answer: Answer, key: string, message: string) {
  expect(answer.status).toBe(422);
  expect(answer.body.success).toBe(false);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.errors[key]).toEqual([message]);
  // Only the broken field is reported: every other field of the body was valid.
  expect(Object.keys(answer.body.errors)).toEqual([key]);
}

/** [what, body, errors key, Laravel message] */
const invalidBodies: [string, Body, string, string][] = [
  ['name of blanks only', withFields({ name: '     ' }), 'name', 'The name field is required.'],
  [
    'name of 2 characters inside blanks',
    withFields({ name: '  ab  ' }),
    'name',
    'The name field must be at least 3 characters.',
  ],
  [
    'address street of blanks',
    withAddress({ street: '   ' }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address number of blanks',
    withAddress({ number: ' ' }),
    'addresses.0.number',
    'The addresses.0.number field is required.',
  ],
  ['name missing', withFields({ name: undefined }), 'name', 'The name field is required.'],
  ['name null', withFields({ name: null }), 'name', 'The name field is required.'],
  ['name empty', withFields({ name: '' }), 'name', 'The name field is required.'],
  [
    'name of 2 characters',
    withFields({ name: 'ab' }),
    'name',
    'The name field must be at least 3 characters.',
  ],
  [
    'name of 256 characters',
    withFields({ name: s(256) }),
    'name',
    'The name field must not be greater than 255 characters.',
  ],
  ['name not a string', withFields({ name: 12345 }), 'name', 'The name field must be a string.'],
  ['type missing', withFields({ type: undefined }), 'type', 'The type field is required.'],
  ['type outside F/J', withFields({ type: 'X' }), 'type', 'The selected type is invalid.'],
  ['type lower-case', withFields({ type: 'f' }), 'type', 'The selected type is invalid.'],
  [
    'code of 101 characters',
    withFields({ code: s(101) }),
    'code',
    'The code field must not be greater than 100 characters.',
  ],
  ['code not a string', withFields({ code: 7 }), 'code', 'The code field must be a string.'],
  [
    'taxvat of 15 digits',
    withFields({ taxvat: s(15, '1') }),
    'taxvat',
    'The taxvat field must not be greater than 14 characters.',
  ],
  [
    'taxvat of 15 digits with punctuation',
    withFields({ taxvat: '123.456.789/0123-45' }),
    'taxvat',
    'The taxvat field must not be greater than 14 characters.',
  ],
  [
    'taxvat with letters',
    withFields({ taxvat: '1234567890A' }),
    'taxvat',
    'The taxvat field must contain only digits.',
  ],
  [
    'taxvat with other symbols',
    withFields({ taxvat: '123#456' }),
    'taxvat',
    'The taxvat field must contain only digits.',
  ],
  [
    'telephone of 31 characters',
    withFields({ telephone: s(31, '1') }),
    'telephone',
    'The telephone field must not be greater than 30 characters.',
  ],
  [
    'telephone not a string',
    withFields({ telephone: 1133334444 }),
    'telephone',
    'The telephone field must be a string.',
  ],
  [
    'mobile of 31 characters',
    withFields({ mobile: s(31, '9') }),
    'mobile',
    'The mobile field must not be greater than 30 characters.',
  ],
  [
    'email without @',
    withFields({ email: 'maria.example.com' }),
    'email',
    'The email field must be a valid email address.',
  ],
  [
    'email without domain',
    withFields({ email: 'maria@' }),
    'email',
    'The email field must be a valid email address.',
  ],
  [
    'email of 256 characters',
    withFields({ email: `${s(244)}@example.com` }),
    'email',
    'The email field must not be greater than 255 characters.',
  ],
  [
    'credit_limit negative',
    withFields({ credit_limit: -0.01 }),
    'credit_limit',
    'The credit limit field must be at least 0.',
  ],
  [
    'credit_limit with 3 decimals',
    withFields({ credit_limit: 10.005 }),
    'credit_limit',
    'The credit limit field must have at most 2 decimal places.',
  ],
  [
    'credit_limit as a string',
    withFields({ credit_limit: '10' }),
    'credit_limit',
    'The credit limit field must be a number.',
  ],
  [
    'addresses not an array',
    withFields({ addresses: { zipcode: '01310100' } }),
    'addresses',
    'The addresses field must be an array.',
  ],
  [
    'address zipcode missing',
    withAddress({ zipcode: undefined }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field is required.',
  ],
  [
    'address zipcode of 7 characters',
    withAddress({ zipcode: '0131010' }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field must be 8 characters.',
  ],
  [
    'address zipcode of 9 characters',
    withAddress({ zipcode: '013101000' }),
    'addresses.0.zipcode',
    'The addresses.0.zipcode field must be 8 characters.',
  ],
  [
    'address street missing',
    withAddress({ street: undefined }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address street empty',
    withAddress({ street: '' }),
    'addresses.0.street',
    'The addresses.0.street field is required.',
  ],
  [
    'address street of 256 characters',
    withAddress({ street: s(256) }),
    'addresses.0.street',
    'The addresses.0.street field must not be greater than 255 characters.',
  ],
  [
    'address district missing',
    withAddress({ district: undefined }),
    'addresses.0.district',
    'The addresses.0.district field is required.',
  ],
  [
    'address district of 256 characters',
    withAddress({ district: s(256) }),
    'addresses.0.district',
    'The addresses.0.district field must not be greater than 255 characters.',
  ],
  [
    'address city missing',
    withAddress({ city: undefined }),
    'addresses.0.city',
    'The addresses.0.city field is required.',
  ],
  [
    'address city of 256 characters',
    withAddress({ city: s(256) }),
    'addresses.0.city',
    'The addresses.0.city field must not be greater than 255 characters.',
  ],
  [
    'address state missing',
    withAddress({ state: undefined }),
    'addresses.0.state',
    'The addresses.0.state field is required.',
  ],
  [
    'address state of 1 character',
    withAddress({ state: 'S' }),
    'addresses.0.state',
    'The addresses.0.state field must be 2 characters.',
  ],
  [
    'address state of 3 characters',
    withAddress({ state: 'SPX' }),
    'addresses.0.state',
    'The addresses.0.state field must be 2 characters.',
  ],
  [
    'address number missing',
    withAddress({ number: undefined }),
    'addresses.0.number',
    'The addresses.0.number field is required.',
  ],
  [
    'address number of 101 characters',
    withAddress({ number: s(101, '1') }),
    'addresses.0.number',
    'The addresses.0.number field must not be greater than 100 characters.',
  ],
  [
    'address complement of 256 characters',
    withAddress({ complement: s(256) }),
    'addresses.0.complement',
    'The addresses.0.complement field must not be greater than 255 characters.',
  ],
  [
    'second address zipcode wrong',
    { ...valid, addresses: [address, { ...address, zipcode: '1' }] },
    'addresses.1.zipcode',
    'The addresses.1.zipcode field must be 8 characters.',
  ],
];

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
  ['email of exactly 255 characters', withFields({ email: `${s(243)}@example.com` })],
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
