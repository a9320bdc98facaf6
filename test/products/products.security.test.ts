import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { expectPermissionMatrix, type RouteCase, type Tenant, tenant } from '../helpers/catalog.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Tenant;
let other: Tenant;
let product: ProductRecord;
let category: number;

beforeAll(async () => {
  server = await startTestServer();
  acme = await tenant(server);
  other = await tenant(server);
  category = await acme.category();
  product = await acme.product({ images: [{ url: 'https://e.io/a.png' }] });
});
afterAll(() => server.close());

const validBody = () => ({
  manage_stock: true,
  code: `SEC-${Math.random()}`.slice(0, 20),
  name: 'Secure',
  price: 1,
  unit: 'UN',
});

describe('every product route needs its permission (403 names it; the permission alone passes)', () => {
  const routes = (): RouteCase[] => [
    { method: 'GET', path: '/products', permission: 'products.read' },
    { method: 'GET', path: `/products/by-code/${product.code}`, permission: 'products.read' },
    { method: 'GET', path: `/products/${product.id}`, permission: 'products.read' },
    { method: 'GET', path: '/search/products?q=a', permission: 'products.read' },
    { method: 'POST', path: '/products', permission: 'products.create', body: validBody() },
    {
      method: 'PUT',
      path: `/products/${product.id}`,
      permission: 'products.update',
      body: { ...validBody(), code: product.code },
    },
    {
      method: 'PATCH',
      path: `/products/${product.id}`,
      permission: 'products.update',
      body: { name: 'Patched' },
    },
    {
      method: 'PUT',
      path: `/products/categories/${category}/sync`,
      permission: 'products.update',
      body: { product_ids: [] },
    },
    {
      method: 'POST',
      path: `/products/${product.id}/images`,
      permission: 'products.update',
      body: { url: 'https://e.io/b.png' },
    },
    {
      method: 'POST',
      path: `/products/${product.id}/images/replace`,
      permission: 'products.update',
      body: { images: [] },
    },
    {
      method: 'DELETE',
      path: `/products/${product.id}/images/999999`,
      permission: 'products.update',
    },
    {
      method: 'PUT',
      path: '/products/prices/bulk',
      permission: 'products.price.update',
      body: { items: [{ product_id: product.id, price: 2 }] },
    },
    { method: 'DELETE', path: '/products/999999', permission: 'products.delete' },
  ];
  it('for each route', async () => {
    for (const route of routes()) await expectPermissionMatrix(server, acme.companyId, route);
  });

  it('without a token is 401', async () => {
    const answer = await server.request('GET', '/products');
    expect(answer.status).toBe(401);
  });
});

describe("another company's product is 404 on every record route", () => {
  let victim: ProductRecord;
  let victimCategory: number;
  beforeAll(async () => {
    victimCategory = await acme.category();
    victim = await acme.product({
      images: [{ url: 'https://e.io/a.png' }],
      categories: [victimCategory],
    });
  });
  const cases = (): [string, string, unknown?][] => [
    ['GET', `/products/${victim.id}`],
    ['GET', `/products/by-code/${victim.code}`],
    ['PUT', `/products/${victim.id}`, { ...validBody(), code: 'OTHER-CO' }],
    ['PATCH', `/products/${victim.id}`, { name: 'Hijack' }],
    ['DELETE', `/products/${victim.id}`],
    ['POST', `/products/${victim.id}/images`, { url: 'https://e.io/x.png' }],
    ['POST', `/products/${victim.id}/images/replace`, { images: [] }],
    ['DELETE', `/products/${victim.id}/images/${victim.images[0]!.id}`],
    ['PUT', `/products/categories/${victimCategory}/sync`, { product_ids: [] }],
  ];
  it('for each route', async () => {
    for (const [method, path, body] of cases()) {
      const answer = await server.request(method, path, { token: other.token, body });
      expect(answer.status, `${method} ${path}`).toBe(404);
    }
    const read = await server.request('GET', `/products/${victim.id}`, { token: acme.token });
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(victim);
  });

  it("lists and searches never show another company's products", async () => {
    const list = await server.request('GET', '/products', { token: other.token });
    expect(list.body.data.map((p: { id: number }) => p.id)).not.toContain(product.id);
    const search = await server.request('GET', `/search/products?q=${product.code}`, {
      token: other.token,
    });
    expect(search.body.meta.total).toBe(0);
  });
});
