import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let customer: number;
let pen: ProductRecord;
let paper: ProductRecord;
let service: ProductRecord;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  customer = await acme.customer();
  const warehouse = await acme.warehouse('MAIN');
  pen = await acme.product({ name: 'Pen', price: 0.1 });
  paper = await acme.product({ name: 'Paper', price: 0.2 });
  service = await acme.product({ name: 'Setup', price: 150, manage_stock: false });
  await server.request('PUT', `/inventory/stock/products/${pen.id}`, {
    token: acme.token,
    body: { quantity: 100, warehouse_id: warehouse },
  });
});
afterAll(() => server.close());

describe('offers', () => {
  it('creates a draft with prices defaulted, totals in cents, and Location', async () => {
    const answer = await server.request('POST', '/offers', {
      token: acme.token,
      body: {
        customer_id: customer,
        items: [
          { product_id: pen.id, quantity: 1 },
          { product_id: paper.id, quantity: 1 },
          { product_id: service.id, quantity: 1, unit_price: 99.99, discount_percent: 12.5 },
        ],
        discount: 0.3,
        notes: 'Deliver Monday',
        valid_until: '2026-12-31',
      },
    });
    expect(answer.status).toBe(201);
    const offer = answer.body.data;
    expect(answer.headers.get('location')).toBe(`${server.api}/offers/${offer.id}`);
    expect(offer).toMatchObject({
      status: 'draft',
      customer_id: customer,
      notes: 'Deliver Monday',
      valid_until: '2026-12-31',
      // 0.1 + 0.2 + round(99.99 × 0.875 = 87.49125) = 0.3 + 87.49
      subtotal: 87.79,
      discount: 0.3,
      total: 87.49,
    });
    expect(offer.items.map((i: { total: number }) => i.total)).toEqual([0.1, 0.2, 87.49]);
    expect(offer.items[0]).toMatchObject({
      product_id: pen.id,
      product_code: pen.code,
      product_name: 'Pen',
      quantity: 1,
      unit_price: 0.1,
      discount_percent: 0,
    });
    const read = await server.request('GET', `/offers/${offer.id}`, { token: acme.token });
    expect(read.body.data).toEqual(offer);
  });

  it('sums many lines exactly', async () => {
    const items = Array.from({ length: 300 }, (_, i) => ({
      product_id: i % 2 ? pen.id : paper.id,
      quantity: 0.333,
      unit_price: 0.07,
      discount_percent: 33.33,
    }));
    const answer = await server.request('POST', '/offers/quote', {
      token: acme.token,
      body: { customer_id: customer, items },
    });
    expect(answer.status).toBe(200);
    // each line: 7 × 0.333 × 0.6667 = 1.554... cents → 2 cents; 300 lines → 6.00
    expect(answer.body.data.items[0].total).toBe(0.02);
    expect(answer.body.data.subtotal).toBe(6);
    expect(answer.body.data.total).toBe(6);
  });

  it('lists offers, filtered by status and customer', async () => {
    const other = await tenant(server);
    const buyer = await other.customer();
    const product = await other.product({ price: 1 });
    for (let i = 0; i < 3; i++) {
      await server.request('POST', '/offers', {
        token: other.token,
        body: { customer_id: buyer, items: [{ product_id: product.id, quantity: i + 1 }] },
      });
    }
    const all = await server.request('GET', '/offers?per_page=2', { token: other.token });
    expect(all.body.meta).toMatchObject({ total: 3, per_page: 2, last_page: 2 });
    const first = all.body.data[0];
    await server.request('PATCH', `/offers/${first.id}`, {
      token: other.token,
      body: { status: 'sent' },
    });
    const sent = await server.request('GET', '/offers?status=sent', { token: other.token });
    expect(sent.body.data.map((o: { id: number }) => o.id)).toEqual([first.id]);
    const byCustomer = await server.request('GET', `/offers?customer_id=${buyer}`, {
      token: other.token,
    });
    expect(byCustomer.body.meta.total).toBe(3);
  });

  it('PATCH changes what is sent and re-prices lines; PUT replaces the offer', async () => {
    const created = await server.request('POST', '/offers', {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: pen.id, quantity: 10 }], notes: 'keep' },
    });
    const id = created.body.data.id;
    const discounted = await server.request('PATCH', `/offers/${id}`, {
      token: acme.token,
      body: { discount: 0.5 },
    });
    expect(discounted.body.data).toMatchObject({
      subtotal: 1,
      discount: 0.5,
      total: 0.5,
      notes: 'keep',
    });
    const relined = await server.request('PATCH', `/offers/${id}`, {
      token: acme.token,
      body: { items: [{ product_id: paper.id, quantity: 5 }] },
    });
    expect(relined.body.data).toMatchObject({ subtotal: 1, discount: 0.5, total: 0.5 });
    expect(relined.body.data.items).toHaveLength(1);
    expect(relined.body.data.items[0].product_id).toBe(paper.id);
    const replaced = await server.request('PUT', `/offers/${id}`, {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: service.id, quantity: 2 }] },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({
      subtotal: 300,
      discount: 0,
      total: 300,
      notes: null,
    });
  });

  it('moves through draft → sent → accepted, and an accepted offer is final', async () => {
    const created = await server.request('POST', '/offers', {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: pen.id, quantity: 1 }] },
    });
    const id = created.body.data.id;
    for (const status of ['sent', 'draft', 'sent', 'accepted']) {
      const answer = await server.request('PATCH', `/offers/${id}`, {
        token: acme.token,
        body: { status },
      });
      expect(answer.status).toBe(200);
      expect(answer.body.data.status).toBe(status);
    }
  });

  it('deletes an offer that is not accepted', async () => {
    const created = await server.request('POST', '/offers', {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: pen.id, quantity: 1 }] },
    });
    const id = created.body.data.id;
    expect((await server.request('DELETE', `/offers/${id}`, { token: acme.token })).status).toBe(
      204,
    );
    expect((await server.request('GET', `/offers/${id}`, { token: acme.token })).status).toBe(404);
  });

  it('keeps its lines when a product is deleted', async () => {
    const gone = await acme.product({ name: 'Discontinued', price: 5 });
    const created = await server.request('POST', '/offers', {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: gone.id, quantity: 2 }] },
    });
    await server.request('DELETE', `/products/${gone.id}`, { token: acme.token });
    const read = await server.request('GET', `/offers/${created.body.data.id}`, {
      token: acme.token,
    });
    expect(read.body.data.items[0]).toMatchObject({
      product_id: null,
      product_code: gone.code,
      product_name: 'Discontinued',
      total: 10,
    });
  });
});

describe('quotes', () => {
  it('computes without saving, and warns when stock is short', async () => {
    const before = await server.request('GET', '/offers', { token: acme.token });
    const answer = await server.request('POST', '/offers/quote', {
      token: acme.token,
      body: {
        customer_id: customer,
        items: [
          { product_id: pen.id, quantity: 60 },
          { product_id: pen.id, quantity: 50.5 },
          { product_id: paper.id, quantity: 1 },
          { product_id: service.id, quantity: 1000 },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      subtotal: 150_011.25,
      total: 150_011.25,
      discount: 0,
    });
    // pen: 110.5 asked of 100; paper: 1 asked of 0; the service does not manage stock
    expect(answer.body.data.warnings).toEqual([
      expect.objectContaining({
        code: 'insufficient_stock',
        product_id: pen.id,
        requested: 110.5,
        available: 100,
      }),
      expect.objectContaining({
        code: 'insufficient_stock',
        product_id: paper.id,
        requested: 1,
        available: 0,
      }),
    ]);
    const after = await server.request('GET', '/offers', { token: acme.token });
    expect(after.body.meta.total).toBe(before.body.meta.total);
  });

  it('no warning when stock covers the quantity', async () => {
    const answer = await server.request('POST', '/offers/quote', {
      token: acme.token,
      body: { customer_id: customer, items: [{ product_id: pen.id, quantity: 100 }] },
    });
    expect(answer.body.data.warnings).toEqual([]);
  });

  it('quotes in bulk, in order', async () => {
    const offers = [1, 2, 3].map((quantity) => ({
      customer_id: customer,
      items: [{ product_id: service.id, quantity }],
    }));
    const answer = await server.request('POST', '/offers/quote/bulk', {
      token: acme.token,
      body: { offers },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((q: { total: number }) => q.total)).toEqual([150, 300, 450]);
  });
});
