import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { expectPermissionMatrix, type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let other: Tenant;
let product: ProductRecord;
let warehouse: number;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  other = await tenant(server);
  warehouse = await acme.warehouse('MAIN');
  await other.warehouse('MAIN');
  product = await acme.product();
  await server.request('PUT', `/inventory/stock/products/${product.id}`, {
    token: acme.token,
    body: { quantity: 4, warehouse_id: warehouse },
  });
});
afterAll(() => server.close());

describe('every stock route needs inventory.stock.update', () => {
  it.each([
    [
      'PUT',
      () => `/inventory/stock/products/${product.id}`,
      () => ({ quantity: 1, warehouse_id: warehouse }),
    ],
    [
      'PUT',
      () => `/inventory/stock/products/by-code/${product.code}`,
      () => ({ quantity: 1, warehouse_code: 'MAIN' }),
    ],
    [
      'PUT',
      () => '/inventory/stock/bulk',
      () => ({ items: [{ product_id: product.id, quantity: 1, warehouse_id: warehouse }] }),
    ],
  ])('PUT %s', async (_name, path, body) => {
    await expectPermissionMatrix(server, acme.companyId, {
      method: 'PUT',
      path: path(),
      permission: 'inventory.stock.update',
      body: body(),
    });
  });
});

describe("another company's product", () => {
  it('is 404 by id and by code, and its stock does not change', async () => {
    const victim = await acme.product();
    await server.request('PUT', `/inventory/stock/products/${victim.id}`, {
      token: acme.token,
      body: { quantity: 4, warehouse_id: warehouse },
    });
    const byId = await server.request('PUT', `/inventory/stock/products/${victim.id}`, {
      token: other.token,
      body: { quantity: 99, warehouse_code: 'MAIN' },
    });
    expect(byId.status).toBe(404);
    const byCode = await server.request('PUT', `/inventory/stock/products/by-code/${victim.code}`, {
      token: other.token,
      body: { quantity: 99, warehouse_code: 'MAIN' },
    });
    expect(byCode.status).toBe(404);
    const bulk = await server.request('PUT', '/inventory/stock/bulk', {
      token: other.token,
      body: { items: [{ product_id: victim.id, quantity: 99, warehouse_code: 'MAIN' }] },
    });
    expect(bulk.status).toBe(422);
    expect(Object.keys(bulk.body.errors)).toEqual(['items.0.product_id']);
    const read = await server.request('GET', `/products/${victim.id}`, { token: acme.token });
    expect(read.body.data.stock.quantity).toBe(4);
  });
});
