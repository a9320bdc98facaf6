import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { type Tenant, tenant } from '../helpers/catalog.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Products, stock and offers on a real PostgreSQL, through the real server: what SQLite
 * forgives (serialized writers, 0/1 booleans, loose types) PostgreSQL does not. A fresh
 * database for this file, dropped after it.
 */

let database: FreshDatabase;
let server: TestServer;
let acme: Tenant;
let other: Tenant;
let main: number;

beforeAll(async () => {
  database = await freshDatabase();
  server = await startTestServer({ database: { kind: 'postgres', url: database.url } });
  acme = await tenant(server);
  other = await tenant(server);
  main = await acme.warehouse('MAIN');
  await acme.warehouse('ANNEX');
});

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const request = (method: string, path: string, body?: unknown, token = acme.token) =>
  server.request(method, path, { token, body });

describe('products on PostgreSQL', () => {
  it('runs on the postgres dialect', () => {
    expect(server.app.services.storage.dialect).toBe('postgres');
  });

  it('creates with categories and images, reads back by id and by code, booleans as booleans', async () => {
    const category = await acme.category('Ferramentas');
    const created = await request('POST', '/products', {
      manage_stock: false,
      code: 'MARTELO-01',
      name: 'Martelo de unha',
      price: 999_999_999_999.99,
      unit: 'UN',
      condition: 'NEW',
      ncm: '8205',
      categories: [category],
      images: [
        { url: 'https://cdn.example.com/martelo.png', alt_text: 'Martelo' },
        { url: 'https://cdn.example.com/martelo-2.png' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const product = created.body.data;
    expect(created.headers.get('location')).toBe(`${server.api}/products/${product.id}`);
    expect(product).toMatchObject({
      code: 'MARTELO-01',
      type: 'SIMPLE',
      condition: 'NEW',
      price: 999_999_999_999.99,
      manage_stock: false,
      categories: [category],
      images: [
        { url: 'https://cdn.example.com/martelo.png', alt_text: 'Martelo', position: 0 },
        { url: 'https://cdn.example.com/martelo-2.png', alt_text: null, position: 1 },
      ],
      assembly: null,
      stock: null,
    });
    for (const path of [`/products/${product.id}`, '/products/by-code/MARTELO-01']) {
      const read = await request('GET', path);
      expect(read.status, path).toBe(200);
      expect(read.body.data).toEqual(product);
    }
    const stocked = await acme.product({ code: 'PREGO-01', name: 'Prego' });
    expect(stocked.manage_stock).toBe(true);
    expect(stocked.stock).toEqual({ quantity: 0, balances: [] });
  });

  it('refuses a taken code with 422, allows it in another company', async () => {
    const taken = await request('POST', '/products', {
      manage_stock: true,
      code: 'MARTELO-01',
      name: 'Outro martelo',
      price: 1,
      unit: 'UN',
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ code: ['The code has already been taken.'] });
    const elsewhere = await other.product({ code: 'MARTELO-01' });
    expect(elsewhere.code).toBe('MARTELO-01');
  });

  it('concurrent creates with one code: one 201, the rest 422, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          request('POST', '/products', {
            manage_stock: true,
            code: `CORRIDA-${round}`,
            name: `Corrida ${n}`,
            price: 1,
            unit: 'UN',
          }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([
        201, 422, 422, 422, 422, 422, 422, 422,
      ]);
      for (const answer of answers.filter((a) => a.status === 422)) {
        expect(answer.body.errors).toEqual({ code: ['The code has already been taken.'] });
      }
    }
  });

  it('concurrent PATCHes and PUTs to one code: one wins, the rest 422', async () => {
    const ids: number[] = [];
    for (let n = 0; n < 4; n++) ids.push((await acme.product()).id);
    const answers = await Promise.all(
      ids.map((id, n) =>
        n % 2
          ? request('PATCH', `/products/${id}`, { code: 'TROCA' })
          : request('PUT', `/products/${id}`, {
              manage_stock: true,
              code: 'TROCA',
              name: `Troca ${n}`,
              price: 2,
              unit: 'UN',
            }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422, 422, 422]);
    for (const answer of answers.filter((a) => a.status === 422)) {
      expect(answer.body.errors).toEqual({ code: ['The code has already been taken.'] });
    }
  });

  it('lists with numbers in meta, searches case-insensitively, ranks an exact code first', async () => {
    const search = await acme.product({ code: 'ALICATE', name: 'Alicate universal' });
    await acme.product({ code: 'AL-2', name: 'alicate de bico' });
    await acme.product({ code: 'AL-3', name: 'Jogo com ALICATE' });
    const list = await request('GET', '/products?search=aLiCaTe&per_page=2');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ total: 3, per_page: 2, last_page: 2, current_page: 1 });
    expect(typeof list.body.meta.total).toBe('number');
    const ranked = await request('GET', '/search/products?q=ALICATE');
    expect(ranked.status).toBe(200);
    expect(ranked.body.data.map((p: ProductRecord) => p.code)).toEqual(['ALICATE', 'AL-2', 'AL-3']);
    expect(ranked.body.data[0].id).toBe(search.id);
    const theirs = await request('GET', '/products?search=alicate', undefined, other.token);
    expect(theirs.body.meta.total).toBe(0);
  });

  it('PUT replaces the whole record; PATCH changes only what is sent', async () => {
    const category = await acme.category();
    const product = await acme.product({ ncm: '1234', categories: [category] });
    const patched = await request('PATCH', `/products/${product.id}`, {
      price: 0.1,
      manage_stock: false,
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      price: 0.1,
      manage_stock: false,
      ncm: '1234',
      categories: [category],
      stock: null,
    });
    const replaced = await request('PUT', `/products/${product.id}`, {
      manage_stock: true,
      code: product.code,
      name: 'Substituído',
      price: 3,
      unit: 'CX',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({
      name: 'Substituído',
      ncm: null,
      categories: [],
      manage_stock: true,
      type: 'SIMPLE',
      condition: 'NOT_SPECIFIED',
    });
  });

  it('assemblies: components read back; a cycle through another kit is refused', async () => {
    const screw = await acme.product({ name: 'Parafuso' });
    const plank = await acme.product({ name: 'Tábua' });
    const shelf = await acme.product({
      type: 'ASSEMBLY',
      assembly: {
        components: [
          { product_id: plank.id, quantity: 2 },
          { product_id: screw.id, quantity: 8.125 },
        ],
      },
    });
    expect(shelf.assembly?.components).toEqual([
      { product_id: plank.id, code: plank.code, name: 'Tábua', quantity: 2 },
      { product_id: screw.id, code: screw.code, name: 'Parafuso', quantity: 8.125 },
    ]);
    const bundle = await acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: shelf.id, quantity: 1 }] },
    });
    const cycle = await request('PATCH', `/products/${shelf.id}`, {
      assembly: { components: [{ product_id: bundle.id, quantity: 1 }] },
    });
    expect(cycle.status).toBe(422);
    expect(Object.keys(cycle.body.errors)).toEqual(['assembly.components.0.product_id']);
    // A component cannot be deleted while a kit uses it.
    const refused = await request('DELETE', `/products/${screw.id}`);
    expect(refused.status).toBe(409);
  });

  it('deletes a product with its stock, images and category links', async () => {
    const category = await acme.category();
    const product = await acme.product({
      categories: [category],
      images: [{ url: 'https://cdn.example.com/x.png' }],
    });
    expect(
      (
        await request('PUT', `/inventory/stock/products/${product.id}`, {
          quantity: 3,
          warehouse_id: main,
          lot_number: 'L-DEL',
          location_code: 'DEL-1',
        })
      ).status,
    ).toBe(200);
    expect((await request('DELETE', `/products/${product.id}`)).status).toBe(204);
    expect((await request('GET', `/products/${product.id}`)).status).toBe(404);
  });

  it('category sync holds exactly the products sent; a foreign product is 422 and nothing changes', async () => {
    const category = await acme.category();
    const [a, b, c] = [await acme.product(), await acme.product(), await acme.product()];
    const first = await request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [a!.id, b!.id, a!.id],
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ category_id: category, product_ids: [a!.id, b!.id] });
    const foreign = await other.product();
    const refused = await request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [c!.id, foreign.id],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['product_ids.1']);
    const second = await request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [c!.id],
    });
    expect(second.body.data.product_ids).toEqual([c!.id]);
    expect((await request('GET', `/products/${a!.id}`)).body.data.categories).toEqual([]);
    expect((await request('GET', `/products/${c!.id}`)).body.data.categories).toEqual([category]);
  });

  it('concurrent syncs of one category: all 200, and it holds exactly one of the lists sent', async () => {
    const category = await acme.category();
    const products: ProductRecord[] = [];
    for (let i = 0; i < 12; i++) products.push(await acme.product());
    const lists = Array.from({ length: 6 }, (_, n) =>
      products.filter((_, i) => i % (n + 1) === 0).map((p) => p.id),
    );
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        lists.map((product_ids) =>
          request('PUT', `/products/categories/${category}/sync`, { product_ids }),
        ),
      );
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const members: number[] = [];
      for (const product of products) {
        const read = await request('GET', `/products/${product.id}`);
        if (read.body.data.categories.includes(category)) members.push(product.id);
      }
      expect(lists).toContainEqual(members);
    }
  });

  it('concurrent writes of one product and its category: all 200, one of them wins whole', async () => {
    const [a, b] = [await acme.category(), await acme.category()];
    const product = await acme.product();
    const url = (n: number) => `https://cdn.example.com/${n}.png`;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, (_, n) =>
          request('PATCH', `/products/${product.id}`, {
            categories: n % 2 ? [a, b] : [b, a],
            images: [{ url: url(n) }, { url: url(n + 10) }],
          }),
        ),
        request('PUT', `/products/categories/${a}/sync`, { product_ids: [product.id] }),
        request('POST', `/products/${product.id}/images/replace`, {
          images: [{ url: url(99) }],
        }),
      ]);
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((x) => x.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const read = (await request('GET', `/products/${product.id}`)).body.data;
      expect([...read.categories].sort()).toEqual([a, b].sort());
      const urls = read.images.map((image: { url: string }) => image.url);
      expect([[url(99)], ...[0, 1, 2, 3].map((n) => [url(n), url(n + 10)])]).toContainEqual(urls);
    }
  });

  it('adds, replaces and deletes images', async () => {
    const product = await acme.product();
    const added = await request('POST', `/products/${product.id}/images`, {
      url: 'https://cdn.example.com/a.png',
      alt_text: 'A',
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ alt_text: 'A', position: 0 });
    const replaced = await request('POST', `/products/${product.id}/images/replace`, {
      images: [{ url: 'https://cdn.example.com/b.png' }, { url: 'https://cdn.example.com/c.png' }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.map((i: { position: number }) => i.position)).toEqual([0, 1]);
    const gone = await request(
      'DELETE',
      `/products/${product.id}/images/${replaced.body.data[0].id}`,
    );
    expect(gone.status).toBe(204);
    const read = await request('GET', `/products/${product.id}`);
    expect(read.body.data.images.map((i: { url: string }) => i.url)).toEqual([
      'https://cdn.example.com/c.png',
    ]);
  });

  it('bulk prices: 1,000 items by id and code; one unknown item and nothing changes', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 20; i++) products.push(await acme.product({ price: 1 }));
    const items = Array.from({ length: 1000 }, (_, i) => {
      const product = products[i % 20]!;
      return {
        ...(i % 2 ? { product_id: product.id } : { code: product.code }),
        price: 1000 + i + 0.01,
      };
    });
    const answer = await request('PUT', '/products/prices/bulk', { items });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    expect(answer.body).toEqual({ data: { updated: 1000 } });
    // The later item wins: product k got items k, k+20, ..., k+980.
    const read = await request('GET', `/products/${products[7]!.id}`);
    expect(read.body.data.price).toBe(1000 + 987 + 0.01);

    const foreign = await other.product();
    const refused = await request('PUT', '/products/prices/bulk', {
      items: [
        ...items.slice(0, 500).map((item) => ({ ...item, price: 5 })),
        { product_id: foreign.id, price: 5 },
      ],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['items.500.product_id']);
    expect((await request('GET', `/products/${products[7]!.id}`)).body.data.price).toBe(1987.01);
  });

  it('overlapping bulk price updates in opposite orders: all 200, no deadlock', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 40; i++) products.push(await acme.product({ price: 1 }));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => {
          const order = n % 2 ? [...products].reverse() : products;
          return request('PUT', '/products/prices/bulk', {
            items: order.map((product) => ({ product_id: product.id, price: round * 10 + n })),
          });
        }),
      );
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const prices = await Promise.all(
        products.map(async (p) => (await request('GET', `/products/${p.id}`)).body.data.price),
      );
      // One transaction each: every product carries the price of the same (last) bulk.
      expect(new Set(prices).size).toBe(1);
    }
  });

  it('another company gets 404 on the record', async () => {
    const product = await acme.product();
    for (const [method, path] of [
      ['GET', `/products/${product.id}`],
      ['GET', `/products/by-code/${product.code}`],
      ['DELETE', `/products/${product.id}`],
    ] as const) {
      expect((await request(method, path, undefined, other.token)).status, path).toBe(404);
    }
    expect((await request('GET', `/products/${product.id}`)).status).toBe(200);
  });
});

describe('stock on PostgreSQL', () => {
  it('sets (not adds) a balance by id and by code, with new locations and lots', async () => {
    const product = await acme.product();
    const first = await request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 10.5,
      warehouse_id: main,
      location_code: 'A-01',
      lot_number: 'LOTE-1',
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({
      product_id: product.id,
      quantity: 10.5,
      balances: [
        {
          warehouse_id: main,
          warehouse_code: 'MAIN',
          location_code: 'A-01',
          lot_number: 'LOTE-1',
          quantity: 10.5,
        },
      ],
    });
    const { location_id, lot_id } = first.body.data.balances[0];
    const second = await request('PUT', `/inventory/stock/products/by-code/${product.code}`, {
      quantity: 4,
      warehouse_code: 'MAIN',
      location_id,
      lot_id,
    });
    expect(second.status).toBe(200);
    expect(second.body.data.balances).toHaveLength(1);
    expect(second.body.data.quantity).toBe(4);
    const annex = await request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 0.001,
      warehouse_code: 'ANNEX',
    });
    expect(annex.body.data.quantity).toBe(4.001);
    const read = await request('GET', `/products/${product.id}`);
    expect(read.body.data.stock.quantity).toBe(4.001);
    expect(
      read.body.data.stock.balances.map((b: { warehouse_code: string }) => b.warehouse_code),
    ).toEqual(['ANNEX', 'MAIN']);
  });

  it('a product that does not manage stock, an unknown warehouse: 422', async () => {
    const service = await acme.product({ manage_stock: false });
    const refused = await request('PUT', `/inventory/stock/products/${service.id}`, {
      quantity: 1,
      warehouse_id: main,
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['product']);
    const product = await acme.product();
    const unknown = await request('PUT', `/inventory/stock/products/${product.id}`, {
      quantity: 1,
      warehouse_code: 'NOPE',
    });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['warehouse_code']);
  });

  it('sets 1,000 balances in one call and they read back', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 10; i++) products.push(await acme.product());
    const items = Array.from({ length: 1000 }, (_, i) => ({
      ...(i % 2 ? { product_id: products[i % 10]!.id } : { product_code: products[i % 10]!.code }),
      quantity: i + 0.5,
      ...(i % 3 ? { warehouse_id: main } : { warehouse_code: 'ANNEX' }),
      location_code: `BIN-${i % 50}`,
      ...(i % 4 === 0 ? { lot_number: `LOT-${i % 8}` } : {}),
    }));
    const answer = await request('PUT', '/inventory/stock/bulk', { items });
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
      const read = await request('GET', `/products/${products[k]!.id}`);
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
    for (let i = 0; i < 5; i++) products.push(await acme.product());
    const set = (quantity: number) =>
      request('PUT', '/inventory/stock/bulk', {
        items: products.map((p) => ({ product_id: p.id, quantity, warehouse_id: main })),
      });
    expect((await set(7)).status).toBe(200);
    const before = await Promise.all(products.map((p) => request('GET', `/products/${p.id}`)));
    const service = await acme.product({ manage_stock: false });
    const foreign = await other.product();
    const items: Record<string, unknown>[] = Array.from({ length: 1000 }, (_, i) => ({
      product_id: products[i % 5]!.id,
      quantity: 99,
      warehouse_code: 'MAIN',
      location_code: `NEW-${i}`,
      lot_number: `NEW-LOT-${i % 7}`,
    }));
    items[137] = { product_id: foreign.id, quantity: 1, warehouse_id: main };
    items[512] = { product_id: service.id, quantity: 1, warehouse_id: main };
    items[998] = { product_id: products[0]!.id, quantity: 1, warehouse_code: 'NOPE' };
    const refused = await request('PUT', '/inventory/stock/bulk', { items });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors).sort()).toEqual([
      'items.137.product_id',
      'items.512.product_id',
      'items.998.warehouse_code',
    ]);
    const after = await Promise.all(products.map((p) => request('GET', `/products/${p.id}`)));
    expect(after.map((a) => a.body.data)).toEqual(before.map((b) => b.body.data));
    // Nor were the new locations and lots left behind.
    const storage = server.app.services.storage;
    const locations = await storage.db
      .selectFrom('stock_locations')
      .select('id')
      .where('code', 'like', 'NEW-%')
      .execute();
    expect(locations).toEqual([]);
  });

  it('concurrent first uses of one location code and lot number make one of each, never a 500', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 6; i++) products.push(await acme.product());
    const answers = await Promise.all(
      products.map((product, n) =>
        n % 2
          ? request('PUT', `/inventory/stock/products/${product.id}`, {
              quantity: n,
              warehouse_id: main,
              location_code: 'RACE-BIN',
            })
          : request('PUT', '/inventory/stock/bulk', {
              items: [
                {
                  product_id: product.id,
                  quantity: n,
                  warehouse_id: main,
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
    const storage = server.app.services.storage;
    const bins = await storage.db
      .selectFrom('stock_locations')
      .select('id')
      .where('code', '=', 'RACE-BIN')
      .execute();
    expect(bins).toHaveLength(1);
    const read = await request('GET', `/products/${products[0]!.id}`);
    const lots = read.body.data.stock.balances.filter(
      (b: { lot_number: string | null }) => b.lot_number === 'RACE-LOT',
    );
    expect(lots).toHaveLength(1);
  });
});

describe('stock under concurrent bulks on PostgreSQL', () => {
  it('overlapping bulks in opposite orders, on new and on existing lots and balances: all 200, no deadlock', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 8; i++) products.push(await acme.product());
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => {
          const order = n % 2 ? [...products].reverse() : products;
          return request('PUT', '/inventory/stock/bulk', {
            items: order.map((product) => ({
              product_id: product.id,
              quantity: round * 10 + n,
              warehouse_id: main,
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
          const read = await request('GET', `/products/${product.id}`);
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
    const product = await acme.product();
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) =>
          n % 2
            ? request('PUT', `/inventory/stock/products/${product.id}`, {
                quantity: round * 10 + n,
                warehouse_id: main,
              })
            : request('PUT', '/inventory/stock/bulk', {
                items: [{ product_id: product.id, quantity: round * 10 + n, warehouse_id: main }],
              }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    }
    const movements = await server.app.services.storage.db
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
    const read = await request('GET', `/products/${product.id}`);
    expect(read.body.data.stock.quantity * 1000).toBe(last);
  });
});

describe('writes racing a delete on PostgreSQL', () => {
  it('stock set and offer create while the product is deleted: never a 500', async () => {
    const customer = await acme.customer();
    for (let round = 0; round < 5; round++) {
      const product = await acme.product();
      const answers = await Promise.all([
        request('PUT', `/inventory/stock/products/${product.id}`, {
          quantity: 1,
          warehouse_id: main,
          lot_number: `DEL-${round}`,
        }),
        request('PUT', '/inventory/stock/bulk', {
          items: [{ product_id: product.id, quantity: 2, warehouse_id: main }],
        }),
        request('POST', '/offers', {
          customer_id: customer,
          items: [{ product_id: product.id, quantity: 1 }],
        }),
        request('DELETE', `/products/${product.id}`),
      ]);
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
      }
      expect(answers[3]!.status).toBe(204);
    }
  });
});

describe('offers on PostgreSQL', () => {
  let customer: number;
  let pen: ProductRecord;
  let paper: ProductRecord;
  let service: ProductRecord;

  beforeAll(async () => {
    customer = await acme.customer();
    pen = await acme.product({ name: 'Caneta', price: 0.1 });
    paper = await acme.product({ name: 'Papel', price: 0.2 });
    service = await acme.product({ name: 'Instalação', price: 150, manage_stock: false });
    await request('PUT', `/inventory/stock/products/${pen.id}`, {
      quantity: 100,
      warehouse_id: main,
    });
  });

  it('creates a draft with prices defaulted and exact totals, and reads it back', async () => {
    const answer = await request('POST', '/offers', {
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
    expect(answer.headers.get('location')).toBe(`${server.api}/offers/${offer.id}`);
    expect(offer).toMatchObject({
      status: 'draft',
      customer_id: customer,
      valid_until: '2026-12-31',
      subtotal: 87.79,
      discount: 0.3,
      total: 87.49,
    });
    expect(offer.items.map((i: { total: number }) => i.total)).toEqual([0.1, 0.2, 87.49]);
    expect((await request('GET', `/offers/${offer.id}`)).body.data).toEqual(offer);
    expect((await request('GET', `/offers/${offer.id}`, undefined, other.token)).status).toBe(404);
  });

  it('quotes without saving, warns on short stock, and quotes in bulk in order', async () => {
    const before = await request('GET', '/offers');
    const quote = await request('POST', '/offers/quote', {
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
    expect((await request('GET', '/offers')).body.meta.total).toBe(before.body.meta.total);
    const bulk = await request('POST', '/offers/quote/bulk', {
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
      const made = await request('POST', '/offers', {
        customer_id: customer,
        items: [{ product_id: pen.id, quantity: 10 }],
        notes: 'manter',
      });
      expect(made.status).toBe(201);
      ids.push(made.body.data.id);
    }
    const sent = await request('PATCH', `/offers/${ids[0]}`, { status: 'sent', discount: 0.5 });
    expect(sent.status).toBe(200);
    expect(sent.body.data).toMatchObject({
      status: 'sent',
      subtotal: 1,
      total: 0.5,
      notes: 'manter',
    });
    const filtered = await request('GET', `/offers?status=sent&customer_id=${customer}`);
    expect(filtered.body.data.map((o: { id: number }) => o.id)).toEqual([ids[0]]);
    expect(typeof filtered.body.meta.total).toBe('number');
    const replaced = await request('PUT', `/offers/${ids[1]}`, {
      customer_id: customer,
      items: [{ product_id: service.id, quantity: 2 }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({ subtotal: 300, total: 300, notes: null });
    expect((await request('DELETE', `/offers/${ids[2]}`)).status).toBe(204);
    expect((await request('GET', `/offers/${ids[2]}`)).status).toBe(404);
  });

  it('concurrent PATCHes of one offer: all 200, and one of them wins whole (lines match totals)', async () => {
    const made = await request('POST', '/offers', {
      customer_id: customer,
      items: [{ product_id: pen.id, quantity: 1 }],
    });
    const id = made.body.data.id;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((quantity) =>
          request('PATCH', `/offers/${id}`, {
            items: [
              { product_id: service.id, quantity },
              { product_id: paper.id, quantity },
            ],
          }),
        ),
      );
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
      const offer = (await request('GET', `/offers/${id}`)).body.data;
      expect(offer.items).toHaveLength(2);
      const quantity = offer.items[0].quantity;
      expect(offer.items[1].quantity).toBe(quantity);
      expect(offer.subtotal).toBe((15_020 * quantity) / 100);
    }
  });

  it('keeps its lines when a product is deleted', async () => {
    const gone = await acme.product({ name: 'Descontinuado', price: 5 });
    const created = await request('POST', '/offers', {
      customer_id: customer,
      items: [{ product_id: gone.id, quantity: 2 }],
    });
    expect((await request('DELETE', `/products/${gone.id}`)).status).toBe(204);
    const read = await request('GET', `/offers/${created.body.data.id}`);
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
