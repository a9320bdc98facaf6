import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let main: number;
let annex: number;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  main = await acme.warehouse('MAIN');
  annex = await acme.warehouse('ANNEX');
});
afterAll(() => server.close());

const movementsOf = (productId: number) =>
  server.app.services.storage.db
    .selectFrom('stock_movements')
    .selectAll()
    .where('product_id', '=', productId)
    .orderBy('id')
    .execute();

describe('setting the stock of one product', () => {
  it('sets (not adds) a balance and answers with the product stock', async () => {
    const product = await acme.product();
    const first = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 10.5, warehouse_id: main },
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({
      product_id: product.id,
      product_code: product.code,
      quantity: 10.5,
      balances: [
        {
          warehouse_id: main,
          warehouse_code: 'MAIN',
          location_id: null,
          location_code: null,
          lot_id: null,
          lot_number: null,
          quantity: 10.5,
        },
      ],
    });
    const second = await server.request(
      'PUT',
      `/inventory/stock/products/by-code/${product.code}`,
      {
        token: acme.token,
        body: { quantity: 4, warehouse_code: 'MAIN' },
      },
    );
    expect(second.body.data.quantity).toBe(4);
    expect(second.body.data.balances).toHaveLength(1);
  });

  it('the product record carries every balance and their sum, exact in thousandths', async () => {
    const product = await acme.product();
    for (const [quantity, warehouse_id] of [
      [0.1, main],
      [0.2, annex],
    ] as const) {
      await server.request('PUT', `/inventory/stock/products/${product.id}`, {
        token: acme.token,
        body: { quantity, warehouse_id },
      });
    }
    const read = await server.request('GET', `/products/${product.id}`, { token: acme.token });
    expect(read.body.data.stock.quantity).toBe(0.3);
    expect(
      read.body.data.stock.balances.map((b: { warehouse_code: string }) => b.warehouse_code),
    ).toEqual(['ANNEX', 'MAIN']);
  });

  it('creates a location by code and a lot by number on first use, then reuses them', async () => {
    const product = await acme.product();
    const first = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 3, warehouse_id: main, location_code: 'A-01', lot_number: 'L2026' },
    });
    const balance = first.body.data.balances[0];
    expect(balance).toMatchObject({ location_code: 'A-01', lot_number: 'L2026', quantity: 3 });
    expect(balance.location_id).toBeGreaterThan(0);
    expect(balance.lot_id).toBeGreaterThan(0);
    const again = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 8, warehouse_id: main, location_code: 'A-01', lot_number: 'L2026' },
    });
    expect(again.body.data.balances).toHaveLength(1);
    expect(again.body.data.balances[0]).toMatchObject({
      location_id: balance.location_id,
      lot_id: balance.lot_id,
      quantity: 8,
    });
    const byIds = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: {
        quantity: 9,
        warehouse_id: main,
        location_id: balance.location_id,
        lot_id: balance.lot_id,
      },
    });
    expect(byIds.body.data.balances).toHaveLength(1);
    expect(byIds.body.data.balances[0].quantity).toBe(9);
    // the same codes in another warehouse make another location; the lot stays the product's
    const annexed = await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 1, warehouse_id: annex, location_code: 'A-01', lot_number: 'L2026' },
    });
    const inAnnex = annexed.body.data.balances.find(
      (b: { warehouse_id: number }) => b.warehouse_id === annex,
    );
    expect(inAnnex.location_id).not.toBe(balance.location_id);
    expect(inAnnex.lot_id).toBe(balance.lot_id);
    expect(annexed.body.data.quantity).toBe(10);
  });

  it('records a movement per change: before, after, observation, token and time', async () => {
    const product = await acme.product();
    await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 5, warehouse_id: main, observation: 'initial count' },
    });
    server.clock.advance(60_000);
    await server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: acme.token,
      body: { quantity: 2.25, warehouse_id: main },
    });
    const movements = await movementsOf(product.id);
    expect(movements).toHaveLength(2);
    expect(movements[0]).toMatchObject({
      before_milli: 0,
      after_milli: 5000,
      observation: 'initial count',
    });
    expect(movements[1]).toMatchObject({
      before_milli: 5000,
      after_milli: 2250,
      observation: null,
    });
    const tokenId = (await server.request('GET', '/me', { token: acme.token })).body.data.token.id;
    expect(movements[0]!.token_id).toBe(tokenId);
    expect(movements[1]!.created_at > movements[0]!.created_at).toBe(true);
  });
});

describe('PUT /inventory/stock/bulk', () => {
  it('sets 1,000 balances in one call and they read back', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 10; i++) products.push(await acme.product());
    const items = Array.from({ length: 1000 }, (_, i) => ({
      ...(i % 2 ? { product_id: products[i % 10]!.id } : { product_code: products[i % 10]!.code }),
      quantity: i + 0.5,
      ...(i % 3 ? { warehouse_id: main } : { warehouse_code: 'ANNEX' }),
      location_code: `BIN-${i % 50}`,
    }));
    const answer = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body: { items },
    });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    expect(answer.body).toEqual({ data: { updated: 1000 } });
    const read = await server.request('GET', `/products/${products[3]!.id}`, { token: acme.token });
    // product 3 got items 3, 13, ..., 993: each a distinct (warehouse, bin) balance, or the later wins
    const expected = new Map<string, number>();
    items.forEach((item, i) => {
      if (i % 10 !== 3) return;
      expected.set(`${i % 3 ? 'MAIN' : 'ANNEX'}:${item.location_code}`, item.quantity);
    });
    const balances = read.body.data.stock.balances;
    expect(balances).toHaveLength(expected.size);
    for (const balance of balances) {
      expect(balance.quantity).toBe(
        expected.get(`${balance.warehouse_code}:${balance.location_code}`),
      );
    }
  });

  it('two items on one balance apply in order and chain their movements', async () => {
    const product = await acme.product();
    const answer = await server.request('PUT', '/inventory/stock/bulk', {
      token: acme.token,
      body: {
        items: [
          { product_id: product.id, quantity: 3, warehouse_id: main },
          { product_code: product.code, quantity: 1, warehouse_code: 'MAIN' },
        ],
      },
    });
    expect(answer.status).toBe(200);
    const read = await server.request('GET', `/products/${product.id}`, { token: acme.token });
    expect(read.body.data.stock.quantity).toBe(1);
    const movements = await movementsOf(product.id);
    expect(movements.map((m) => [m.before_milli, m.after_milli])).toEqual([
      [0, 3000],
      [3000, 1000],
    ]);
  });
});
