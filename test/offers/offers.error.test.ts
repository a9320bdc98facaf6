import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let customer: number;
let product: ProductRecord;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  customer = await acme.customer();
  product = await acme.product({ price: 10 });
});
afterAll(() => server.close());

type Body = Record<string, unknown>;
const offer = (override: Body = {}, item: Body = {}): Body => {
  const base: Body = {
    customer_id: customer,
    items: [{ product_id: product.id, quantity: 1, ...item }],
  };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
};

const rejected: [rule: string, body: () => Body, key: string][] = [
  ['customer_id is required', () => offer({ customer_id: undefined }), 'customer_id'],
  ['customer_id is at least 1', () => offer({ customer_id: 0 }), 'customer_id'],
  ['items is required', () => offer({ items: undefined }), 'items'],
  ['items has at least 1 line', () => offer({ items: [] }), 'items'],
  [
    'items has at most 500 lines',
    () =>
      offer({
        items: Array.from({ length: 501 }, () => ({ product_id: product.id, quantity: 1 })),
      }),
    'items',
  ],
  ['a line needs product_id', () => offer({}, { product_id: undefined }), 'items.0.product_id'],
  ['quantity is required', () => offer({}, { quantity: undefined }), 'items.0.quantity'],
  ['quantity is above 0', () => offer({}, { quantity: 0 }), 'items.0.quantity'],
  ['quantity has at most 3 decimals', () => offer({}, { quantity: 1.0005 }), 'items.0.quantity'],
  ['unit_price is at least 0', () => offer({}, { unit_price: -1 }), 'items.0.unit_price'],
  [
    'unit_price has at most 2 decimals',
    () => offer({}, { unit_price: 1.001 }),
    'items.0.unit_price',
  ],
  [
    'discount_percent is at least 0',
    () => offer({}, { discount_percent: -1 }),
    'items.0.discount_percent',
  ],
  [
    'discount_percent is at most 100',
    () => offer({}, { discount_percent: 100.01 }),
    'items.0.discount_percent',
  ],
  [
    'discount_percent has at most 2 decimals',
    () => offer({}, { discount_percent: 1.234 }),
    'items.0.discount_percent',
  ],
  ['discount is at least 0', () => offer({ discount: -0.01 }), 'discount'],
  ['discount is at most the subtotal', () => offer({ discount: 10.01 }), 'discount'],
  ['valid_until is a date', () => offer({ valid_until: '31/12/2026' }), 'valid_until'],
  ['notes is a string', () => offer({ notes: 5 }), 'notes'],
  ['the customer belongs to the company', () => offer({ customer_id: 999_999 }), 'customer_id'],
  [
    'the product belongs to the company',
    () => offer({}, { product_id: 999_999 }),
    'items.0.product_id',
  ],
  [
    'a line total stays within the money maximum',
    () => offer({}, { unit_price: 999_999_999_999.99, quantity: 2 }),
    'items.0.quantity',
  ],
];

describe.each(['/offers', '/offers/quote'])('POST %s', (path) => {
  it.each(rejected)('%s → 422', async (_rule, body, key) => {
    const answer = await server.request('POST', path, { token: acme.token, body: body() });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });

  it.each([
    ['discount equal to the subtotal', () => offer({ discount: 10 })],
    ['discount_percent 100', () => offer({}, { discount_percent: 100 })],
    ['unit_price 0', () => offer({}, { unit_price: 0 })],
    ['quantity 0.001', () => offer({}, { quantity: 0.001 })],
    [
      '500 lines',
      () =>
        offer({
          items: Array.from({ length: 500 }, () => ({ product_id: product.id, quantity: 1 })),
        }),
    ],
  ])('accepts %s', async (_case, body) => {
    const answer = await server.request('POST', path, { token: acme.token, body: body() });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBeLessThan(300);
  });
});

describe('POST /offers/quote/bulk', () => {
  it('keys a malformed offer offers.N.…', async () => {
    const answer = await server.request('POST', '/offers/quote/bulk', {
      token: acme.token,
      body: { offers: [offer(), offer({}, { quantity: -1 })] },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['offers.1.items.0.quantity']);
  });

  it('reports every offer the database refuses, keyed offers.N.…', async () => {
    const answer = await server.request('POST', '/offers/quote/bulk', {
      token: acme.token,
      body: {
        offers: [
          offer(),
          offer({ customer_id: 999_999 }),
          offer({}, { product_id: 999_999 }),
          offer({ discount: 50 }),
        ],
      },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([
      'offers.1.customer_id',
      'offers.2.items.0.product_id',
      'offers.3.discount',
    ]);
  });

  it.each([
    ['offers is required', () => ({})],
    ['offers has at least 1', () => ({ offers: [] })],
    ['offers has at most 100', () => ({ offers: Array.from({ length: 101 }, () => offer()) })],
  ])('%s', async (_rule, body) => {
    const answer = await server.request('POST', '/offers/quote/bulk', {
      token: acme.token,
      body: body(),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['offers']);
  });

  it('takes 100', async () => {
    const answer = await server.request('POST', '/offers/quote/bulk', {
      token: acme.token,
      body: { offers: Array.from({ length: 100 }, () => offer()) },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(100);
  });
});

describe('offer states', () => {
  const create = async () => {
    const answer = await server.request('POST', '/offers', { token: acme.token, body: offer() });
    return answer.body.data.id as number;
  };
  const move = (id: number, status: string) =>
    server.request('PATCH', `/offers/${id}`, { token: acme.token, body: { status } });

  it.each([
    ['draft', 'accepted', []],
    ['draft', 'rejected', []],
    ['accepted', 'draft', ['sent', 'accepted']],
    ['accepted', 'rejected', ['sent', 'accepted']],
    ['rejected', 'sent', ['sent', 'rejected']],
    ['expired', 'draft', ['expired']],
  ])('%s → %s is 409', async (from, to, path) => {
    const id = await create();
    for (const step of path) expect((await move(id, step)).status).toBe(200);
    const answer = await move(id, to);
    expect(answer.status).toBe(409);
    expect(answer.body.message).toContain(`${from} to ${to}`);
    const read = await server.request('GET', `/offers/${id}`, { token: acme.token });
    expect(read.body.data.status).toBe(from);
  });

  it('an unknown status is 422', async () => {
    const answer = await move(await create(), 'won');
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['status']);
  });

  it('a final offer cannot be edited or, once accepted, deleted (409)', async () => {
    const id = await create();
    await move(id, 'sent');
    await move(id, 'accepted');
    const edit = await server.request('PATCH', `/offers/${id}`, {
      token: acme.token,
      body: { notes: 'late' },
    });
    expect(edit.status).toBe(409);
    const put = await server.request('PUT', `/offers/${id}`, { token: acme.token, body: offer() });
    expect(put.status).toBe(409);
    const remove = await server.request('DELETE', `/offers/${id}`, { token: acme.token });
    expect(remove.status).toBe(409);
    const rejectedId = await create();
    await move(rejectedId, 'sent');
    await move(rejectedId, 'rejected');
    expect(
      (await server.request('DELETE', `/offers/${rejectedId}`, { token: acme.token })).status,
    ).toBe(204);
  });

  it('PATCH with a discount above the stored subtotal is 422 and changes nothing', async () => {
    const id = await create();
    const answer = await server.request('PATCH', `/offers/${id}`, {
      token: acme.token,
      body: { discount: 11 },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['discount']);
    const read = await server.request('GET', `/offers/${id}`, { token: acme.token });
    expect(read.body.data.total).toBe(10);
  });
});
