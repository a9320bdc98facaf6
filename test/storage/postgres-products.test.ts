import { describe, expect, it } from 'vitest';
import type { ProductRecord } from '../../shared/products.ts';
import { postgresCatalogOfFile } from '../helpers/postgres-catalog.ts';

/**
 * Products and their categories, images and prices on a real PostgreSQL,
 * through the real server: what SQLite forgives (serialized writers, 0/1 booleans, loose
 * types) PostgreSQL does not. A fresh database for this file, dropped after it.
 */

const pg = postgresCatalogOfFile();

describe('products on PostgreSQL', () => {
  it('runs on the postgres dialect', () => {
    expect(pg.server.app.services.storage.dialect).toBe('postgres');
  });

  it('creates with categories and images, reads back by id and by code, booleans as booleans', async () => {
    const category = await pg.acme.category('Ferramentas');
    const created = await pg.request('POST', '/products', {
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
    expect(created.headers.get('location')).toBe(`${pg.server.api}/products/${product.id}`);
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
      const read = await pg.request('GET', path);
      expect(read.status, path).toBe(200);
      expect(read.body.data).toEqual(product);
    }
    const stocked = await pg.acme.product({ code: 'PREGO-01', name: 'Prego' });
    expect(stocked.manage_stock).toBe(true);
    expect(stocked.stock).toEqual({ quantity: 0, balances: [] });
  });

  it('refuses a taken code with 422, allows it in another company', async () => {
    const taken = await pg.request('POST', '/products', {
      manage_stock: true,
      code: 'MARTELO-01',
      name: 'Outro martelo',
      price: 1,
      unit: 'UN',
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ code: ['The code has already been taken.'] });
    const elsewhere = await pg.other.product({ code: 'MARTELO-01' });
    expect(elsewhere.code).toBe('MARTELO-01');
  });

  it('concurrent creates with one code: one 201, the rest 422, never a 500', async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, n) =>
          pg.request('POST', '/products', {
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
    for (let n = 0; n < 4; n++) ids.push((await pg.acme.product()).id);
    const answers = await Promise.all(
      ids.map((id, n) =>
        n % 2
          ? pg.request('PATCH', `/products/${id}`, { code: 'TROCA' })
          : pg.request('PUT', `/products/${id}`, {
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
    const search = await pg.acme.product({ code: 'ALICATE', name: 'Alicate universal' });
    await pg.acme.product({ code: 'AL-2', name: 'alicate de bico' });
    await pg.acme.product({ code: 'AL-3', name: 'Jogo com ALICATE' });
    const list = await pg.request('GET', '/products?search=aLiCaTe&per_page=2');
    expect(list.status).toBe(200);
    expect(list.body.meta).toMatchObject({ total: 3, per_page: 2, last_page: 2, current_page: 1 });
    expect(typeof list.body.meta.total).toBe('number');
    const ranked = await pg.request('GET', '/search/products?q=ALICATE');
    expect(ranked.status).toBe(200);
    expect(ranked.body.data.map((p: ProductRecord) => p.code)).toEqual(['ALICATE', 'AL-2', 'AL-3']);
    expect(ranked.body.data[0].id).toBe(search.id);
    const theirs = await pg.request('GET', '/products?search=alicate', undefined, pg.other.token);
    expect(theirs.body.meta.total).toBe(0);
  });

  it('PUT replaces the whole record; PATCH changes only what is sent', async () => {
    const category = await pg.acme.category();
    const product = await pg.acme.product({ ncm: '1234', categories: [category] });
    const patched = await pg.request('PATCH', `/products/${product.id}`, {
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
    const replaced = await pg.request('PUT', `/products/${product.id}`, {
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
    const screw = await pg.acme.product({ name: 'Parafuso' });
    const plank = await pg.acme.product({ name: 'Tábua' });
    const shelf = await pg.acme.product({
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
    const bundle = await pg.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: shelf.id, quantity: 1 }] },
    });
    const cycle = await pg.request('PATCH', `/products/${shelf.id}`, {
      assembly: { components: [{ product_id: bundle.id, quantity: 1 }] },
    });
    expect(cycle.status).toBe(422);
    expect(Object.keys(cycle.body.errors)).toEqual(['assembly.components.0.product_id']);
    // A component cannot be deleted while a kit uses it.
    const refused = await pg.request('DELETE', `/products/${screw.id}`);
    expect(refused.status).toBe(409);
  });

  it('deletes a product with its stock, images and category links', async () => {
    const category = await pg.acme.category();
    const product = await pg.acme.product({
      categories: [category],
      images: [{ url: 'https://cdn.example.com/x.png' }],
    });
    expect(
      (
        await pg.request('PUT', `/inventory/stock/products/${product.id}`, {
          quantity: 3,
          warehouse_id: pg.main,
          lot_number: 'L-DEL',
          location_code: 'DEL-1',
        })
      ).status,
    ).toBe(200);
    expect((await pg.request('DELETE', `/products/${product.id}`)).status).toBe(204);
    expect((await pg.request('GET', `/products/${product.id}`)).status).toBe(404);
  });

  it('category sync holds exactly the products sent; a foreign product is 422 and nothing changes', async () => {
    const category = await pg.acme.category();
    const [a, b, c] = [await pg.acme.product(), await pg.acme.product(), await pg.acme.product()];
    const first = await pg.request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [a!.id, b!.id, a!.id],
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ category_id: category, product_ids: [a!.id, b!.id] });
    const foreign = await pg.other.product();
    const refused = await pg.request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [c!.id, foreign.id],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['product_ids.1']);
    const second = await pg.request('PUT', `/products/categories/${category}/sync`, {
      product_ids: [c!.id],
    });
    expect(second.body.data.product_ids).toEqual([c!.id]);
    expect((await pg.request('GET', `/products/${a!.id}`)).body.data.categories).toEqual([]);
    expect((await pg.request('GET', `/products/${c!.id}`)).body.data.categories).toEqual([
      category,
    ]);
  });

  it('concurrent syncs of one category: all 200, and it holds exactly one of the lists sent', async () => {
    const category = await pg.acme.category();
    const products: ProductRecord[] = [];
    for (let i = 0; i < 12; i++) products.push(await pg.acme.product());
    const lists = Array.from({ length: 6 }, (_, n) =>
      products.filter((_, i) => i % (n + 1) === 0).map((p) => p.id),
    );
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        lists.map((product_ids) =>
          pg.request('PUT', `/products/categories/${category}/sync`, { product_ids }),
        ),
      );
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const members: number[] = [];
      for (const product of products) {
        const read = await pg.request('GET', `/products/${product.id}`);
        if (read.body.data.categories.includes(category)) members.push(product.id);
      }
      expect(lists).toContainEqual(members);
    }
  });

  it('concurrent writes of one product and its category: all 200, one of them wins whole', async () => {
    const [a, b] = [await pg.acme.category(), await pg.acme.category()];
    const product = await pg.acme.product();
    const url = (n: number) => `https://cdn.example.com/${n}.png`;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all([
        ...Array.from({ length: 4 }, (_, n) =>
          pg.request('PATCH', `/products/${product.id}`, {
            categories: n % 2 ? [a, b] : [b, a],
            images: [{ url: url(n) }, { url: url(n + 10) }],
          }),
        ),
        pg.request('PUT', `/products/categories/${a}/sync`, { product_ids: [product.id] }),
        pg.request('POST', `/products/${product.id}/images/replace`, {
          images: [{ url: url(99) }],
        }),
      ]);
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((x) => x.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const read = (await pg.request('GET', `/products/${product.id}`)).body.data;
      expect([...read.categories].sort()).toEqual([a, b].sort());
      const urls = read.images.map((image: { url: string }) => image.url);
      expect([[url(99)], ...[0, 1, 2, 3].map((n) => [url(n), url(n + 10)])]).toContainEqual(urls);
    }
  });

  it('adds, replaces and deletes images', async () => {
    const product = await pg.acme.product();
    const added = await pg.request('POST', `/products/${product.id}/images`, {
      url: 'https://cdn.example.com/a.png',
      alt_text: 'A',
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ alt_text: 'A', position: 0 });
    const replaced = await pg.request('POST', `/products/${product.id}/images/replace`, {
      images: [{ url: 'https://cdn.example.com/b.png' }, { url: 'https://cdn.example.com/c.png' }],
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.map((i: { position: number }) => i.position)).toEqual([0, 1]);
    const gone = await pg.request(
      'DELETE',
      `/products/${product.id}/images/${replaced.body.data[0].id}`,
    );
    expect(gone.status).toBe(204);
    const read = await pg.request('GET', `/products/${product.id}`);
    expect(read.body.data.images.map((i: { url: string }) => i.url)).toEqual([
      'https://cdn.example.com/c.png',
    ]);
  });

  it('bulk prices: 1,000 items by id and code; one unknown item and nothing changes', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 20; i++) products.push(await pg.acme.product({ price: 1 }));
    const items = Array.from({ length: 1000 }, (_, i) => {
      const product = products[i % 20]!;
      return {
        ...(i % 2 ? { product_id: product.id } : { code: product.code }),
        price: 1000 + i + 0.01,
      };
    });
    const answer = await pg.request('PUT', '/products/prices/bulk', { items });
    expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
    expect(answer.body).toEqual({ data: { updated: 1000 } });
    // The later item wins: product k got items k, k+20, ..., k+980.
    const read = await pg.request('GET', `/products/${products[7]!.id}`);
    expect(read.body.data.price).toBe(1000 + 987 + 0.01);

    const foreign = await pg.other.product();
    const refused = await pg.request('PUT', '/products/prices/bulk', {
      items: [
        ...items.slice(0, 500).map((item) => ({ ...item, price: 5 })),
        { product_id: foreign.id, price: 5 },
      ],
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['items.500.product_id']);
    expect((await pg.request('GET', `/products/${products[7]!.id}`)).body.data.price).toBe(1987.01);
  });

  it('overlapping bulk price updates in opposite orders: all 200, no deadlock', async () => {
    const products: ProductRecord[] = [];
    for (let i = 0; i < 40; i++) products.push(await pg.acme.product({ price: 1 }));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, n) => {
          const order = n % 2 ? [...products].reverse() : products;
          return pg.request('PUT', '/products/prices/bulk', {
            items: order.map((product) => ({ product_id: product.id, price: round * 10 + n })),
          });
        }),
      );
      expect(
        answers.map((answer) => answer.status),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body),
      ).toEqual([200, 200, 200, 200, 200, 200]);
      const prices = await Promise.all(
        products.map(async (p) => (await pg.request('GET', `/products/${p.id}`)).body.data.price),
      );
      // One transaction each: every product carries the price of the same (last) bulk.
      expect(new Set(prices).size).toBe(1);
    }
  });

  it('another company gets 404 on the record', async () => {
    const product = await pg.acme.product();
    for (const [method, path] of [
      ['GET', `/products/${product.id}`],
      ['GET', `/products/by-code/${product.code}`],
      ['DELETE', `/products/${product.id}`],
    ] as const) {
      expect((await pg.request(method, path, undefined, pg.other.token)).status, path).toBe(404);
    }
    expect((await pg.request('GET', `/products/${product.id}`)).status).toBe(200);
  });
});
