import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let product: ProductRecord;
let warehouse: number;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  warehouse = await acme.warehouse('MAIN');
  await acme.warehouse('W'.repeat(20));
  product = await acme.product({ manage_stock: true });
});
afterAll(() => server.close());

type Payload = Record<string, unknown>;

/** A valid payload with `override` applied (undefined removes a field). */
function payload(override: Payload = {}): Payload {
  const base: Payload = { quantity: 1, warehouse_id: warehouse };
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined) delete base[key];
    else base[key] = value;
  }
  return base;
}

// The stock update payload (docs/reference.md): each bound and rule, and its error keys.
const rejected: [rule: string, override: Payload, keys: string[]][] = [
  ['quantity is required', { quantity: undefined }, ['quantity']],
  ['quantity is a number', { quantity: '1' }, ['quantity']],
  ['quantity is at least 0', { quantity: -0.001 }, ['quantity']],
  ['quantity has at most 3 decimals', { quantity: 1.0001 }, ['quantity']],
  ['warehouse_id is an integer', { warehouse_id: 1.5 }, ['warehouse_id']],
  ['warehouse_id is at least 1', { warehouse_id: 0 }, ['warehouse_id']],
  [
    'warehouse_code has at most 20 characters',
    { warehouse_id: undefined, warehouse_code: 'W'.repeat(21) },
    ['warehouse_code'],
  ],
  ['location_id is at least 1', { location_id: 0 }, ['location_id']],
  ['location_code has at most 50 characters', { location_code: 'L'.repeat(51) }, ['location_code']],
  ['lot_id is at least 1', { lot_id: 0 }, ['lot_id']],
  ['lot_number has at most 100 characters', { lot_number: 'N'.repeat(101) }, ['lot_number']],
  ['observation has at most 1000 characters', { observation: 'o'.repeat(1001) }, ['observation']],
  [
    'rule 1: one of warehouse_id or warehouse_code is required',
    { warehouse_id: undefined },
    ['warehouse_id', 'warehouse_code'],
  ],
  [
    'rule 1: not both warehouse_id and warehouse_code',
    { warehouse_code: 'MAIN' },
    ['warehouse_id', 'warehouse_code'],
  ],
  [
    'rule 2: not both location_id and location_code',
    { location_id: 1, location_code: 'A1' },
    ['location_id', 'location_code'],
  ],
  [
    'rule 3: not both lot_id and lot_number',
    { lot_id: 1, lot_number: 'L1' },
    ['lot_id', 'lot_number'],
  ],
];

const accepted: [string, Payload][] = [
  ['quantity 0', { quantity: 0 }],
  ['quantity with 3 decimals', { quantity: 0.001 }],
  ['warehouse_code of 20 characters', { warehouse_id: undefined, warehouse_code: 'W'.repeat(20) }],
  ['location_code of 50 characters', { location_code: 'L'.repeat(50) }],
  ['lot_number of 100 characters', { lot_number: 'N'.repeat(100) }],
  ['observation of 1000 characters', { observation: 'o'.repeat(1000) }],
  ['no location and no lot', {}],
];

describe.each([
  ['by id', () => `/inventory/stock/products/${product.id}`],
  ['by code', () => `/inventory/stock/products/by-code/${product.code}`],
])('PUT /inventory/stock/products %s', (_name, path) => {
  it.each(rejected)('%s → 422', async (_rule, override, keys) => {
    const answer = await server.request('PUT', path(), {
      token: acme.token,
      body: payload(override),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([...keys].sort());
  });

  it.each(accepted)('accepts %s', async (_case, override) => {
    const answer = await server.request('PUT', path(), {
      token: acme.token,
      body: payload(override),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });
});

describe('what the stock routes look up', () => {
  it.each([
    ['an unknown warehouse id', { warehouse_id: 99999 }, 'warehouse_id'],
    [
      'an unknown warehouse code',
      { warehouse_id: undefined, warehouse_code: 'NOPE' },
      'warehouse_code',
    ],
    ['an unknown location id', { location_id: 99999 }, 'location_id'],
    ['an unknown lot id', { lot_id: 99999 }, 'lot_id'],
  ])('%s → 422 on the field', async (_case, override, key) => {
    const answer = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: payload(override),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });

  it("another company's warehouse is unknown", async () => {
    const other = await tenant(server);
    const theirs = await other.warehouse('THEIRS');
    const answer = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: payload({ warehouse_id: theirs }),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['warehouse_id']);
  });

  it('a location of another warehouse, or a lot of another product, is refused', async () => {
    const second = await acme.warehouse('SECOND');
    const other = await acme.product();
    const set = await server.request('PUT', `/inventory/stock/products/${other.id}`, {
      token: acme.token,
      body: { quantity: 1, warehouse_id: second, location_code: 'SHELF', lot_number: 'LOT-X' },
    });
    const { location_id, lot_id } = set.body.data.balances[0];
    const answer = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 1, warehouse_id: warehouse, location_id, lot_id },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['location_id', 'lot_id']);
  });

  it('a product that does not manage stock → 422 that says so', async () => {
    const service = await acme.product({ manage_stock: false });
    const answer = await server.request('PUT', `/inventory/stock/products/${service.id}`, {
      token: acme.token,
      body: payload(),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.product[0]).toMatch(/manage_stock/);
  });

  it('an unknown product is 404, by id and by code', async () => {
    expect(
      (
        await server.request('PUT', '/inventory/stock/products/99999', {
          token: acme.token,
          body: payload(),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await server.request('PUT', '/inventory/stock/products/by-code/NOPE', {
          token: acme.token,
          body: payload(),
        })
      ).status,
    ).toBe(404);
  });
});

describe('PUT /inventory/stock/bulk', () => {
  it.each(rejected)('%s → 422 keyed items.N', async (_rule, override, keys) => {
    const items = [
      { product_id: product.id, ...payload() },
      { product_id: product.id, ...payload(override) },
    ];
    const answer = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body: { items },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(
      keys.map((key) => `items.1.${key}`).sort(),
    );
  });

  it.each([
    ['items is required', {}, ['items']],
    ['items has at least 1 item', { items: [] }, ['items']],
    [
      'items has at most 1,000 items',
      {
        items: Array.from({ length: 1001 }, () => ({
          product_id: 1,
          quantity: 1,
          warehouse_id: 1,
        })),
      },
      ['items'],
    ],
    [
      'an item names its product',
      { items: [{ quantity: 1, warehouse_id: 1 }] },
      ['items.0.product_id', 'items.0.product_code'],
    ],
    [
      'an item names its product once',
      { items: [{ product_id: 1, product_code: 'X', quantity: 1, warehouse_id: 1 }] },
      ['items.0.product_id', 'items.0.product_code'],
    ],
  ])('%s', async (_rule, body, keys) => {
    const answer = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body,
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([...keys].sort());
  });

  it('one bad item changes no balance and records no movement', async () => {
    const a = await acme.product();
    const b = await acme.product();
    const service = await acme.product({ manage_stock: false });
    const setup = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body: {
        items: [
          { product_id: a.id, quantity: 5, warehouse_id: warehouse },
          { product_id: b.id, quantity: 7, warehouse_id: warehouse },
        ],
      },
    });
    expect(setup.status).toBe(200);
    const movements = () =>
      server.app.services.storage.db
        .selectFrom('stock_movements')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
    const before = await movements();
    const lots = await server.app.services.storage.db
      .selectFrom('stock_lots')
      .selectAll()
      .execute();
    const answer = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body: {
        items: [
          { product_id: a.id, quantity: 50, warehouse_id: warehouse, lot_number: 'NEW-LOT' },
          { product_code: b.code, quantity: 70, warehouse_code: 'MAIN', location_code: 'NEW-LOC' },
          { product_code: 'NO-SUCH-PRODUCT', quantity: 1, warehouse_id: warehouse },
          { product_id: service.id, quantity: 1, warehouse_id: warehouse },
          { product_id: a.id, quantity: 1, warehouse_code: 'NO-SUCH-WH' },
        ],
      },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([
      'items.2.product_code',
      'items.3.product_id',
      'items.4.warehouse_code',
    ]);
    const readA = await server.request('GET', `/products/${a.id}`, { token: acme.token });
    const readB = await server.request('GET', `/products/${b.id}`, { token: acme.token });
    expect(readA.body.data.stock.quantity).toBe(5);
    expect(readB.body.data.stock.quantity).toBe(7);
    expect(readB.body.data.stock.balances).toHaveLength(1);
    expect(await movements()).toEqual(before);
    expect(
      await server.app.services.storage.db.selectFrom('stock_lots').selectAll().execute(),
    ).toEqual(lots);
  });
});
