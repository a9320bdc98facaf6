import { describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { postgresCatalogOfFile } from '../helpers/postgres-catalog.ts';

/**
 * Stock (balances, locations, lots, movements) on a real PostgreSQL, under concurrency,
 * through the real server: what SQLite forgives (serialized writers, 0/1 booleans, loose
 * types) PostgreSQL does not. A fresh database for this file, dropped after it.
 */

const pg = postgresCatalogOfFile();

describe('stock on PostgreSQL', () => {
  it('sets (not adds) a balance by id and by code, with new locations and lots', async () => {
    const product = await pg.acme.product();
    const first = await pg.request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 10.5,
      warehouse_id: pg.main,
      location_code: 'A-01',
      lot_number: 'LOTE-1',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({
      product_id: product.id,
      quantity: 10.5,
      balances: [
        {
          warehouse_id: pg.main,
          warehouse_code: 'MAIN',
          location_code: 'A-01',
          lot_number: 'LOTE-1',
          quantity: 10.5,
        },
      ],
    });
    const { location_id, lot_id } = first.body.data.balances[0];
    const second = await pg.request('PUT', `/inventory/stock/products/by-code/${product.code}`, {
      quantity: 4,
      warehouse_code: 'MAIN',
      location_id,
      lot_id,
    });
    expect(second.status).toBe(200);
    expect(second.body.data.balances).toHaveLength(1);
    expect(second.body.data.quantity).toBe(4);
    const annex = await pg.request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 0.001,
      warehouse_code: 'ANNEX',
    });
    expect(annex.body.data.quantity).toBe(4.001);
    const read = await pg.request('GET', `/products/${product.id}`);
    expect(read.body.data.stock.quantity).toBe(4.001);
    expect(
      read.body.data.stock.balances.map((b: { warehouse_code: string }) => b.warehouse_code),
    ).toEqual(['ANNEX', 'MAIN']);
  });

  it('a product that does not manage stock, an unknown warehouse: 422', async () => {
    const service = await pg.acme.product({ manage_stock: false });
    const refused = await pg.request('PUT', `/inventory/stock/products/${service.id}`, {
      quantity: 1,
      warehouse_id: pg.main,
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['product']);
    const product = await pg.acme.product();
    const unknown = await pg.request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 1,
      warehouse_code: 'NOPE',
    });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['warehouse_code']);
  });

  it('sets 1,000 balances in one call and they read back', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 10; i++) products.push(await pg.acme.product());
    const items = Array.from({ length: 1000 }, (_, i) => ({
      ...(i % 2 ? { product_id: products[i % 10]!.id } : { product_code: products[i % 10]!.code }),
      quantity: i + 0.5,
      ...(i % 3 ? { warehouse_id: pg.main } : { warehouse_code: 'ANNEX' }),
      location_code: `BIN-${i % 50}`,
      ...(i % 4 === 0 ? { lot_number: `LOT-${i % 8}` } : {}),
    }));
    const answer = await pg.request('PUT', '/inventory/stock/bulk', { items });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    expect(answer.body).toEqual({ data: { updated: 1000 } });
    for (const k of [0, 3]) {
      const expected = new Map<string, number>();
      items.forEach((item, i) => {
        if (i % 10 !== k) return;
        expected.set(
          `${i % 3 ? 'MAIN' : 'ANNEX'}:${item.location_code}:${item.lot_number ?? null}`,
          item.quantity,
        );
      });
      const read = await pg.request('GET', `/products/${products[k]!.id}`);
      const balances: {
        warehouse_code: string;
        location_code: string;
        lot_number: string | null;
        quantity: number;
      }[] = read.body.data.stock.balances;
      expect(balances).toHaveLength(expected.size);
      for (const b of balances) {
        expect(b.quantity).toBe(
          expected.get(`${b.warehouse_code}:${b.location_code}:${b.lot_number}`),
        );
      }
    }
  });

  it('bulk is all or nothing: one bad item in 1,000 and nothing changes', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 5; i++) products.push(await pg.acme.product());
    const set = (quantity: number) =>
      pg.request('PUT', '/inventory/stock/bulk', {
        items: products.map((p) => ({ product_id: p.id, quantity, warehouse_id: pg.main })),
      });
    expect((await set(7)).status).toBe(200);
    const before = await Promise.all(products.map((p) => pg.request('GET', `/products/${p.id}`)));
    const service = await pg.acme.product({ manage_stock: false });
    const foreign = await pg.other.product();
    const items: Record<string, unknown>[] = Array.from({ length: 1000 }, (_, i) => ({
      product_id: products[i % 5]!.id,
      quantity: 99,
      warehouse_code: 'MAIN',
      location_code: `NEW-${i}`,
      lot_number: `NEW-LOT-${i % 7}`,
    }));
    items[137] = { product_id: foreign.id, quantity: 1, warehouse_id: pg.main };
    items[512] = { product_id: service.id, quantity: 1, warehouse_id: pg.main };
    items[998] = { product_id: products[0]!.id, quantity: 1, warehouse_code: 'NOPE' };
    const refused = await pg.request('PUT', '/inventory/stock/bulk', { items });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual([
      'items.137.product_id',
      'items.512.product_id',
      'items.998.warehouse_code',
    ]);
    const after = await Promise.all(products.map((p) => pg.request('GET', `/products/${p.id}`)));
    expect(after.map((a) => a.body.data)).toEqual(before.map((b) => b.body.data));
    // Nor were the new locations and lots left behind.
    const storage = pg.server.app.services.storage;
    const locations = await storage.db
      .selectFrom('stock_locations')
      .select('id')
      .where('code', 'like', 'NEW-%')
      .execute();
    expect(locations).toEqual([]);
  });

  it('concurrent first uses of one location code and lot number make one of each, never a 500', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 6; i++) products.push(await pg.acme.product());
    const answers = await Promise.all(
      products.map((product, n) =>
        n % 2
          ? pg.request('PUT', `/inventory/stock/products/${product.id}`, {
              quantity: n,
              warehouse_id: pg.main,
              location_code: 'RACE-BIN',
            })
          : pg.request('PUT', '/inventory/stock/bulk', {
              items: [
                {
                  product_id: product.id,
                  quantity: n,
                  warehouse_id: pg.main,
                  location_code: 'RACE-BIN',
                },
                {
                  product_id: products[0]!.id,
                  quantity: n,
                  warehouse_code: 'ANNEX',
                  lot_number: 'RACE-LOT',
                },
              ],
            }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const storage = pg.server.app.services.storage;
    const bins = await storage.db
      .selectFrom('stock_locations')
      .select('id')
      .where('code', '=', 'RACE-BIN')
      .execute();
    expect(bins).toHaveLength(1);
    const read = await pg.request('GET', `/products/${products[0]!.id}`);
    const lots = read.body.data.stock.balances.filter(
      (b: { lot_number: string | null }) => b.lot_number === 'RACE-LOT',
    );
    expect(lots).toHaveLength(1);
  });
});

describe('stock under concurrent bulks on PostgreSQL', () => {
  it('overlapping bulks in opposite orders, on new and on existing lots and balances: all 200, no deadlock', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 8; i++) products.push(await pg.acme.product());
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => {
          const order = n % 2 ? [...products].reverse() : products;
          return pg.request('PUT', '/inventory/stock/bulk', {
            items: order.map((product) => ({
              product_id: product.id,
              quantity: round * 10 + n,
              warehouse_id: pg.main,
              // New lots and balances in rounds 0 and 1, created in opposite orders; round 2
              // writes round 0's again (existing rows, locked in opposite orders).
              lot_number: `R${round % 2}`,
            })),
          });
        }),
      );
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      // Each bulk is one transaction: every product holds the quantity of the same (last) one.
      const quantities = await Promise.all(
        products.map(async (product) => {
          const read = await pg.request('GET', `/products/${product.id}`);
          return read.body.data.stock.balances.find(
            (b: { lot_number: string }) => b.lot_number === `R${round % 2}`,
          ).quantity as number;
        }),
      );
      expect(new Set(quantities).size).toBe(1);
    }
  });
});

describe('stock movements under concurrency on PostgreSQL', () => {
  it('concurrent sets of one balance, new or not, chain their movements exactly', async () => {
    const product = await pg.acme.product();
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) =>
          n % 2
            ? pg.request('PUT', `/inventory/stock/products/${product.id}`, {
                quantity: round * 10 + n,
                warehouse_id: pg.main,
              })
            : pg.request('PUT', '/inventory/stock/bulk', {
                items: [
                  { product_id: product.id, quantity: round * 10 + n, warehouse_id: pg.main },
                ],
              }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    }
    const movements = await pg.server.app.services.storage.db
      .selectFrom('stock_movements')
      .select(['before_milli', 'after_milli'])
      .where('product_id', '=', product.id)
      .orderBy('id')
      .execute();
    expect(movements).toHaveLength(12);
    // Each movement starts where the one before it ended: none was computed from a stale read.
    let last = 0;
    for (const movement of movements) {
      expect(Number(movement.before_milli)).toBe(last);
      last = Number(movement.after_milli);
    }
    const read = await pg.request('GET', `/products/${product.id}`);
    expect(read.body.data.stock.quantity * 1000).toBe(last);
  });
});

describe('writes racing a delete on PostgreSQL', () => {
  it('stock set and offer create while the product is deleted: never a 500', async () => {
    const customer = await pg.acme.customer();
    for (let round = 0; round < 5; round++) {
      const product = await pg.acme.product();
      const answers = await Promise.all([
        pg.request('PUT', `/inventory/stock/products/${product.id}`, {
          quantity: 1,
          warehouse_id: pg.main,
          lot_number: `DEL-${round}`,
        }),
        pg.request('PUT', '/inventory/stock/bulk', {
          items: [{ product_id: product.id, quantity: 2, warehouse_id: pg.main }],
        }),
        pg.request('POST', '/offers', {
          customer_id: customer,
          items: [{ product_id: product.id, quantity: 1 }],
        }),
        pg.request('DELETE', `/products/${product.id}`),
      ]);
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
      }
      expect(answers[3]!.status).toBe(204);
    }
  });
});
