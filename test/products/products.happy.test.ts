import { describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { catalogOfFile, tenant } from '../helpers/catalog.ts';

const shop = catalogOfFile();

describe('products', () => {
  it('creates a product, answers 201 with Location, and reads it by id and by code', async () => {
    const category = await shop.acme.category('Tools');
    const created = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: {
        manage_stock: false,
        code: 'HAMMER-01',
        name: 'Claw hammer',
        price: 29.9,
        unit: 'UN',
        condition: 'NEW',
        ncm: '8205',
        categories: [category],
        images: [{ url: 'https://cdn.example.com/hammer.png', alt_text: 'Hammer' }],
      },
    });
    expect(created.status).toBe(201);
    const product = created.body.data;
    expect(created.headers.get('location')).toBe(`${shop.server.api}/products/${product.id}`);
    expect(product).toMatchObject({
      code: 'HAMMER-01',
      name: 'Claw hammer',
      type: 'SIMPLE',
      condition: 'NEW',
      unit: 'UN',
      price: 29.9,
      ncm: '8205',
      manage_stock: false,
      categories: [category],
      images: [{ url: 'https://cdn.example.com/hammer.png', alt_text: 'Hammer', position: 0 }],
      assembly: null,
      stock: null,
    });
    const byId = await shop.server.request('GET', `/products/${product.id}`, {
      token: shop.acme.token,
    });
    expect(byId.body.data).toEqual(product);
    const byCode = await shop.server.request('GET', '/products/by-code/HAMMER-01', {
      token: shop.acme.token,
    });
    expect(byCode.body.data).toEqual(product);
    expect(
      (await shop.server.request('GET', '/products/by-code/NOPE', { token: shop.acme.token }))
        .status,
    ).toBe(404);
  });

  it('a stock-managed product shows its stock, empty at first', async () => {
    const product = await shop.acme.product({ manage_stock: true });
    expect(product.stock).toEqual({ quantity: 0, balances: [] });
  });

  it('lists with pagination and search, and searches with q', async () => {
    const other = await tenant(shop.server);
    for (const name of ['Blue pen', 'Red pen', 'Pencil', 'Eraser']) {
      await other.product({ name });
    }
    const page = await shop.server.request('GET', '/products?per_page=2&page=2', {
      token: other.token,
    });
    expect(page.status).toBe(200);
    expect(page.body.meta).toMatchObject({ current_page: 2, per_page: 2, total: 4, last_page: 2 });
    expect(page.body.data.map((p: { name: string }) => p.name)).toEqual(['Pencil', 'Eraser']);
    const pens = await shop.server.request('GET', '/products?search=pen', { token: other.token });
    expect(pens.body.meta.total).toBe(3);
    expect(pens.body.links.next).toBeNull();
    const search = await shop.server.request('GET', '/search/products?q=Pen', {
      token: other.token,
    });
    // names that start with the term first
    expect(search.body.data.map((p: { name: string }) => p.name)).toEqual([
      'Pencil',
      'Blue pen',
      'Red pen',
    ]);
    const onePerPage = await shop.server.request('GET', '/search/products?q=pen&per_page=1', {
      token: other.token,
    });
    expect(onePerPage.body.links.next).toContain('q=pen');
  });

  it('PUT replaces the whole record; PATCH changes only what is sent', async () => {
    const category = await shop.acme.category();
    const product = await shop.acme.product({
      ncm: '12',
      categories: [category],
      condition: 'USED',
    });
    const patched = await shop.server.request('PATCH', `/products/${product.id}`, {
      token: shop.acme.token,
      body: { name: 'Renamed' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: 'Renamed',
      ncm: '12',
      categories: [category],
      condition: 'USED',
    });
    const put = await shop.server.request('PUT', `/products/${product.id}`, {
      token: shop.acme.token,
      body: { manage_stock: true, code: product.code, name: 'Replaced', price: 1.5, unit: 'KG' },
    });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({
      name: 'Replaced',
      price: 1.5,
      unit: 'KG',
      ncm: null,
      categories: [],
      condition: 'NOT_SPECIFIED',
      type: 'SIMPLE',
    });
  });

  it('an ASSEMBLY product lists its components with quantities', async () => {
    const screw = await shop.acme.product({ name: 'Screw' });
    const plank = await shop.acme.product({ name: 'Plank' });
    const shelf = await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: {
        components: [
          { product_id: plank.id, quantity: 2 },
          { product_id: screw.id, quantity: 8.125 },
        ],
      },
    });
    expect(shelf.assembly?.components).toEqual([
      { product_id: plank.id, code: plank.code, name: 'Plank', quantity: 2 },
      { product_id: screw.id, code: screw.code, name: 'Screw', quantity: 8.125 },
    ]);
    // a kit may use another kit
    const bundle = await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: shelf.id, quantity: 1 }] },
    });
    expect(bundle.assembly?.components[0]?.product_id).toBe(shelf.id);
  });

  it('deletes a product (204), then it is 404', async () => {
    const product = await shop.acme.product({ images: [{ url: 'https://e.io/x.png' }] });
    const warehouse = await shop.acme.warehouse('DEL');
    await shop.server.request('PUT', `/inventory/stock/products/${product.id}`, {
      token: shop.acme.token,
      body: { quantity: 3, warehouse_id: warehouse },
    });
    const answer = await shop.server.request('DELETE', `/products/${product.id}`, {
      token: shop.acme.token,
    });
    expect(answer.status).toBe(204);
    expect(answer.body).toBe('');
    expect(
      (await shop.server.request('GET', `/products/${product.id}`, { token: shop.acme.token }))
        .status,
    ).toBe(404);
  });
});

describe('categories and images', () => {
  it('sync makes the category hold exactly the products sent', async () => {
    const category = await shop.acme.category();
    const a = await shop.acme.product();
    const b = await shop.acme.product();
    const c = await shop.acme.product({ categories: [category] });
    const answer = await shop.server.request('PUT', `/products/categories/${category}/sync`, {
      token: shop.acme.token,
      body: { product_ids: [a.id, b.id, a.id] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ category_id: category, product_ids: [a.id, b.id] });
    const readC = await shop.server.request('GET', `/products/${c.id}`, { token: shop.acme.token });
    expect(readC.body.data.categories).toEqual([]);
    const readA = await shop.server.request('GET', `/products/${a.id}`, { token: shop.acme.token });
    expect(readA.body.data.categories).toEqual([category]);
    const empty = await shop.server.request('PUT', `/products/categories/${category}/sync`, {
      token: shop.acme.token,
      body: { product_ids: [] },
    });
    expect(empty.body.data.product_ids).toEqual([]);
  });

  it('adds, replaces and deletes images', async () => {
    const product = await shop.acme.product();
    const added = await shop.server.request('POST', `/products/${product.id}/images`, {
      token: shop.acme.token,
      body: { url: 'https://e.io/1.png', alt_text: 'one' },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({
      url: 'https://e.io/1.png',
      alt_text: 'one',
      position: 0,
    });
    expect(added.headers.get('location')).toContain(
      `/products/${product.id}/images/${added.body.data.id}`,
    );
    const second = await shop.server.request('POST', `/products/${product.id}/images`, {
      token: shop.acme.token,
      body: { url: 'https://e.io/2.png' },
    });
    expect(second.body.data.position).toBe(1);
    const replaced = await shop.server.request('POST', `/products/${product.id}/images/replace`, {
      token: shop.acme.token,
      body: {
        images: [{ url: 'https://e.io/a.png' }, { url: 'https://e.io/b.png', alt_text: 'b' }],
      },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.map((i: { url: string }) => i.url)).toEqual([
      'https://e.io/a.png',
      'https://e.io/b.png',
    ]);
    const removed = await shop.server.request(
      'DELETE',
      `/products/${product.id}/images/${replaced.body.data[0].id}`,
      {
        token: shop.acme.token,
      },
    );
    expect(removed.status).toBe(204);
    const read = await shop.server.request('GET', `/products/${product.id}`, {
      token: shop.acme.token,
    });
    expect(read.body.data.images.map((i: { url: string }) => i.url)).toEqual([
      'https://e.io/b.png',
    ]);
  });
});

describe('PUT /products/prices/bulk', () => {
  it('sets prices by id and by code in one call', async () => {
    const a = await shop.acme.product({ price: 1 });
    const b = await shop.acme.product({ price: 2 });
    const answer = await shop.server.request('PUT', '/products/prices/bulk', {
      token: shop.acme.token,
      body: {
        items: [
          { product_id: a.id, price: 10.1 },
          { code: b.code, price: 0.3 },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { updated: 2 } });
    expect(
      (await shop.server.request('GET', `/products/${a.id}`, { token: shop.acme.token })).body.data
        .price,
    ).toBe(10.1);
    expect(
      (await shop.server.request('GET', `/products/${b.id}`, { token: shop.acme.token })).body.data
        .price,
    ).toBe(0.3);
  });

  it('takes 1,000 items', async () => {
    const other = await tenant(shop.server);
    const products: ProductRecord[] = [];
    for (let i = 0; i < 5; i++) products.push(await other.product({ price: 1 }));
    const items = Array.from({ length: 1000 }, (_, i) => ({
      product_id: products[i % 5]!.id,
      price: i / 100,
    }));
    const answer = await shop.server.request('PUT', '/products/prices/bulk', {
      token: other.token,
      body: { items },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.updated).toBe(1000);
    // the later item for a product wins
    const read = await shop.server.request('GET', `/products/${products[4]!.id}`, {
      token: other.token,
    });
    expect(read.body.data.price).toBe(9.99);
  });
});
