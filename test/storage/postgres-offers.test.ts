import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { tenant } from '../helpers/catalog.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { postgresCatalogOfFile } from '../helpers/postgres-catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Offers on a real PostgreSQL, and two server instances sharing one,
 * through the real server: what SQLite forgives (serialized writers, 0/1 booleans, loose
 * types) PostgreSQL does not. A fresh database for this file, dropped after it.
 */

const pg = postgresCatalogOfFile();

describe('offers on PostgreSQL', () => {
  let customer: number;
  let pen: ProductRecord;
  let paper: ProductRecord;
  let service: ProductRecord;

  beforeAll(async () => {
    customer = await pg.acme.customer();
    pen = await pg.acme.product({ name: 'Caneta', price: 0.1 });
    paper = await pg.acme.product({ name: 'Papel', price: 0.2 });
    service = await pg.acme.product({ name: 'Instalação', price: 150, manage_stock: false });
    await pg.request('PUT', `/inventory/stock/products/${pen.id}`, {
      quantity: 100,
      warehouse_id: pg.main,
    });
  });

  it('creates a draft with prices defaulted and exact totals, and reads it back', async () => {
    const answer = await pg.request('POST', '/offers', {
      customer_id: customer,
      items: [
        { product_id: pen.id, quantity: 1 },
        { product_id: paper.id, quantity: 1 },
        { product_id: service.id, quantity: 1, unit_price: 99.99, discount_percent: 12.5 },
      ],
      discount: 0.3,
      notes: 'Entregar segunda',
      valid_until: '2026-12-31',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    const offer = answer.body.data;
    expect(answer.headers.get('location')).toBe(`${pg.server.api}/offers/${offer.id}`);
    expect(offer).toMatchObject({
      status: 'draft',
      customer_id: customer,
      valid_until: '2026-12-31',
      subtotal: 87.79,
      discount: 0.3,
      total: 87.49,
    });
    expect(offer.items.map((i: { total: number }) => i.total)).toEqual([0.1, 0.2, 87.49]);
    expect((await pg.request('GET', `/offers/${offer.id}`)).body.data).toEqual(offer);
    expect((await pg.request('GET', `/offers/${offer.id}`, undefined, pg.other.token)).status).toBe(
      404,
    );
  });

  it('quotes without saving, warns on short stock, and quotes in bulk in order', async () => {
    const before = await pg.request('GET', '/offers');
    const quote = await pg.request('POST', '/offers/quote', {
      customer_id: customer,
      items: [
        { product_id: pen.id, quantity: 110.5 },
        { product_id: paper.id, quantity: 1 },
        { product_id: service.id, quantity: 1000 },
      ],
    });
    expect(quote.status).toBe(200);
    expect(quote.body.data).toMatchObject({ subtotal: 150_011.25, total: 150_011.25 });
    expect(
      quote.body.data.warnings.map((w: { product_id: number; available: number }) => [
        w.product_id,
        w.available,
      ]),
    ).toEqual([
      [pen.id, 100],
      [paper.id, 0],
    ]);
    expect((await pg.request('GET', '/offers')).body.meta.total).toBe(before.body.meta.total);
    const bulk = await pg.request('POST', '/offers/quote/bulk', {
      offers: [1, 2, 3].map((quantity) => ({
        customer_id: customer,
        items: [{ product_id: service.id, quantity }],
      })),
    });
    expect(bulk.status).toBe(200);
    expect(bulk.body.data.map((q: { total: number }) => q.total)).toEqual([150, 300, 450]);
  });

  it('lists with filters; PATCH moves status and re-prices; PUT replaces; DELETE removes', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const made = await pg.request('POST', '/offers', {
        customer_id: customer,
        items: [{ product_id: pen.id, quantity: 10 }],
        notes: 'manter',
      });
      expect(made.status).toBe(201);
      ids.push(made.body.data.id);
    }
    const sent = await pg.request('PATCH', `/offers/${ids[0]}`, { status: 'sent', discount: 0.5 });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({
      status: 'sent',
      subtotal: 1,
      total: 0.5,
      notes: 'manter',
    });
    const filtered = await pg.request('GET', `/offers?status=sent&customer_id=${customer}`);
    expect(filtered.body.data.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
    expect(typeof filtered.body.meta.total).toBe('number');
    const replaced = await pg.request('PUT', `/offers/${ids[1]}`, {
      customer_id: customer,
      items: [{ product_id: service.id, quantity: 2 }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ subtotal: 300, total: 300, notes: null });
    expect((await pg.request('DELETE', `/offers/${ids[2]}`)).status).toBe(204);
    expect((await pg.request('GET', `/offers/${ids[2]}`)).status).toBe(404);
  });

  it('concurrent PATCHes of one offer: all 200, and one of them wins whole (lines match totals)', async () => {
    const made = await pg.request('POST', '/offers', {
      customer_id: customer,
      items: [{ product_id: pen.id, quantity: 1 }],
    });
    const id = made.body.data.id;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((quantity) =>
          pg.request('PATCH', `/offers/${id}`, {
            items: [
              { product_id: service.id, quantity },
              { product_id: paper.id, quantity },
            ],
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const offer = (await pg.request('GET', `/offers/${id}`)).body.data;
      expect(offer.items).toHaveLength(2);
      const quantity = offer.items[0].quantity;
      expect(offer.items[1].quantity).toBe(quantity);
      expect(offer.subtotal).toBe((15_020 * quantity) / 100);
    }
  });

  it('keeps its lines when a product is deleted', async () => {
    const gone = await pg.acme.product({ name: 'Descontinuado', price: 5 });
    const created = await pg.request('POST', '/offers', {
      customer_id: customer,
      items: [{ product_id: gone.id, quantity: 2 }],
    });
    expect((await pg.request('DELETE', `/products/${gone.id}`)).status).toBe(204);
    const read = await pg.request('GET', `/offers/${created.body.data.id}`);
    expect(read.body.data.items[0]).toMatchObject({
      product_id: null,
      product_code: gone.code,
      product_name: 'Descontinuado',
      total: 10,
    });
  });
});

describe('two server instances on one PostgreSQL', () => {
  let shared: FreshDatabase;
  let one: TestServer;
  let two: TestServer;

  beforeAll(async () => {
    shared = await freshDatabase();
    // Both start (and migrate) at once on an empty database.
    const target = { kind: 'postgres', url: shared.url } as const;
    [one, two] = await Promise.all([
      startTestServer({ database: target }),
      startTestServer({ database: target }),
    ]);
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await shared?.drop();
  });

  it('migrate once, then serve the same data; a code race across them is one 201', async () => {
    const shop = await tenant(one);
    await shop.warehouse('MAIN');
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        (n % 2 ? two : one).request('POST', '/products', {
          token: shop.token,
          body: { manage_stock: true, code: 'SHARED', name: `Shared ${n}`, price: 1, unit: 'UN' },
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      201, 422, 422, 422, 422, 422, 422, 422,
    ]);
    const id = answers.find((answer) => answer.status === 201)!.body.data.id;
    const set = await two.request('PUT', '/inventory/stock/bulk', {
      token: shop.token,
      body: { items: [{ product_code: 'SHARED', quantity: 3.5, warehouse_code: 'MAIN' }] },
    });
    expect(set.status).toBe(200);
    const read = await one.request('GET', `/products/${id}`, { token: shop.token });
    expect(read.body.data.stock.quantity).toBe(3.5);
  });
});
