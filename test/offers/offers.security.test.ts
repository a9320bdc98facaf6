import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { expectPermissionMatrix, type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let other: Tenant;
let customer: number;
let product: ProductRecord;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  other = await tenant(server);
  customer = await acme.customer();
  product = await acme.product();
});
afterAll(() => server.close());

const body = () => ({ customer_id: customer, items: [{ product_id: product.id, quantity: 1 }] });
const newOffer = async () =>
  (await server.request('POST', '/offers', { token: acme.token, body: body() })).body.data;

describe('every offer route needs its permission', () => {
  it.each([
    ['GET', 'list', 'offers.read'],
    ['POST', 'create', 'offers.create'],
    ['GET', 'one', 'offers.read'],
    ['PUT', 'one', 'offers.update'],
    ['PATCH', 'one', 'offers.update'],
    ['DELETE', 'one', 'offers.delete'],
    ['POST', 'quote', 'offers.quote'],
    ['POST', 'quote/bulk', 'offers.quote'],
  ] as const)('%s %s needs %s', async (method, target, permission) => {
    const offer = await newOffer();
    const path = {
      list: '/offers',
      create: '/offers',
      one: `/offers/${offer.id}`,
      quote: '/offers/quote',
      'quote/bulk': '/offers/quote/bulk',
    }[target];
    const payload =
      target === 'quote/bulk'
        ? { offers: [body()] }
        : method === 'PATCH'
          ? { notes: 'x' }
          : method === 'GET' || method === 'DELETE'
            ? undefined
            : body();
    await expectPermissionMatrix(server, acme.companyId, {
      method,
      path,
      permission,
      body: payload,
    });
  });
});

describe("another company's offer", () => {
  it('is 404 on every record route, and stays as it was', async () => {
    const offer = await newOffer();
    for (const [method, payload] of [
      ['GET', undefined],
      ['PUT', body()],
      ['PATCH', { status: 'sent' }],
      ['DELETE', undefined],
    ] as const) {
      const answer = await server.request(method, `/offers/${offer.id}`, {
        token: other.token,
        body: payload,
      });
      expect(answer.status, method).toBe(404);
    }
    const read = await server.request('GET', `/offers/${offer.id}`, { token: acme.token });
    expect(read.body.data).toEqual(offer);
  });

  it("cannot quote or offer to another company's customer or product", async () => {
    const answer = await server.request('POST', '/offers/quote', {
      token: other.token,
      body: body(),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual(['customer_id', 'items.0.product_id']);
    const list = await server.request('GET', '/offers', { token: other.token });
    expect(list.body.meta.total).toBe(0);
  });
});
