import { describe, expect, it } from 'vitest';
import { onUniqueViolation } from '../../server/storage/database.ts';
import { catalogOfFile, tenant } from '../helpers/catalog.ts';
import { body } from './product-body.ts';

/**
 * Product rules that need the database (unique codes, categories and components of the
 * company, assemblies without loops, components not deleted), bulk prices all or nothing,
 * category sync and images.
 */

const shop = catalogOfFile();

describe('product rules that need the database', () => {
  it("refuses a code already taken in the company, with Laravel's message", async () => {
    const first = await shop.acme.product();
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body({ code: first.code }),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors.code).toEqual(['The code has already been taken.']);
  });

  it('lets another company use the same code', async () => {
    const first = await shop.acme.product();
    const other = await tenant(shop.server);
    const answer = await shop.server.request('POST', '/products', {
      token: other.token,
      body: body({ code: first.code }),
    });
    expect(answer.status).toBe(201);
  });

  it('concurrent creates with one code: one 201, the rest 422, never a 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        shop.server.request('POST', '/products', {
          token: shop.acme.token,
          body: body({ code: 'RACE' }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([
      201, 422, 422, 422, 422, 422, 422, 422,
    ]);
  });

  it("the unique index's own refusal (a writer the check did not see) reads as the code taken", async () => {
    const first = await shop.acme.product();
    const storage = shop.server.app.services.storage;
    // As another process (the CLI, a second server) would: straight past the check.
    const duplicate = storage.db
      .insertInto('products')
      .values({
        company_id: shop.acme.companyId,
        code: first.code,
        name: 'Duplicate',
        type: 'SIMPLE',
        condition: 'NOT_SPECIFIED',
        unit: 'UN',
        price_cents: 1,
        ncm: null,
        manage_stock: 1,
        created_at: first.created_at,
        updated_at: first.created_at,
      })
      .execute();
    const refused = await duplicate
      .catch(onUniqueViolation('products', ['company_id', 'code'], () => new Error('taken')))
      .catch((error: Error) => error.message);
    expect(refused).toBe('taken');
    const unrelated = await duplicate
      .catch(onUniqueViolation('customers', ['company_id', 'code'], () => new Error('taken')))
      .catch((error: Error) => error.message);
    expect(unrelated).toMatch(/UNIQUE constraint failed: products\.company_id, products\.code/);
  });

  it('refuses on PUT and PATCH a code another product holds', async () => {
    const a = await shop.acme.product();
    const b = await shop.acme.product();
    const patch = await shop.server.request('PATCH', `/products/${b.id}`, {
      token: shop.acme.token,
      body: { code: a.code },
    });
    expect(patch.status).toBe(422);
    expect(patch.body.errors.code).toEqual(['The code has already been taken.']);
    const same = await shop.server.request('PATCH', `/products/${a.id}`, {
      token: shop.acme.token,
      body: { code: a.code },
    });
    expect(same.status).toBe(200);
  });

  it("refuses another company's category, keyed by its position", async () => {
    const mine = await shop.acme.category();
    const other = await tenant(shop.server);
    const theirs = await other.category();
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body({ categories: [mine, theirs] }),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['categories.1']);
  });

  it('refuses a component that is not a product of the company', async () => {
    const other = await tenant(shop.server);
    const theirs = await other.product();
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body({
        type: 'ASSEMBLY',
        assembly: { components: [{ product_id: theirs.id, quantity: 1 }] },
      }),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['assembly.components.0.product_id']);
  });

  it('refuses a component listed twice', async () => {
    const part = await shop.acme.product();
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body({
        type: 'ASSEMBLY',
        assembly: {
          components: [
            { product_id: part.id, quantity: 1 },
            { product_id: part.id, quantity: 2 },
          ],
        },
      }),
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['assembly.components.1.product_id']);
  });

  it('refuses an assembly that contains itself, directly or through another', async () => {
    const part = await shop.acme.product();
    const inner = await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: part.id, quantity: 1 }] },
    });
    const outer = await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: inner.id, quantity: 2 }] },
    });
    const direct = await shop.server.request('PATCH', `/products/${outer.id}`, {
      token: shop.acme.token,
      body: { assembly: { components: [{ product_id: outer.id, quantity: 1 }] } },
    });
    expect(direct.status).toBe(422);
    expect(Object.keys(direct.body.errors)).toEqual(['assembly.components.0.product_id']);
    // inner would contain outer, which contains inner
    const indirect = await shop.server.request('PATCH', `/products/${inner.id}`, {
      token: shop.acme.token,
      body: {
        assembly: {
          components: [
            { product_id: part.id, quantity: 1 },
            { product_id: outer.id, quantity: 1 },
          ],
        },
      },
    });
    expect(indirect.status).toBe(422);
    expect(Object.keys(indirect.body.errors)).toEqual(['assembly.components.1.product_id']);
    expect(indirect.body.errors['assembly.components.1.product_id'][0]).toMatch(/contain itself/);
    // a simple product that becomes an assembly of something containing it
    const loop = await shop.server.request('PUT', `/products/${part.id}`, {
      token: shop.acme.token,
      body: body({
        code: part.code,
        type: 'ASSEMBLY',
        assembly: { components: [{ product_id: outer.id, quantity: 1 }] },
      }),
    });
    expect(loop.status).toBe(422);
    expect(Object.keys(loop.body.errors)).toEqual(['assembly.components.0.product_id']);
  });

  it('PATCH to ASSEMBLY without assembly is 422; to SIMPLE drops the components', async () => {
    const part = await shop.acme.product();
    const plain = await shop.acme.product();
    const missing = await shop.server.request('PATCH', `/products/${plain.id}`, {
      token: shop.acme.token,
      body: { type: 'ASSEMBLY' },
    });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(['assembly']);
    const kit = await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: part.id, quantity: 1 }] },
    });
    const simple = await shop.server.request('PATCH', `/products/${kit.id}`, {
      token: shop.acme.token,
      body: { type: 'SIMPLE' },
    });
    expect(simple.status).toBe(200);
    expect(simple.body.data.assembly).toBeNull();
  });

  it('refuses to delete a component of an assembly (409)', async () => {
    const part = await shop.acme.product();
    await shop.acme.product({
      type: 'ASSEMBLY',
      assembly: { components: [{ product_id: part.id, quantity: 1 }] },
    });
    const answer = await shop.server.request('DELETE', `/products/${part.id}`, {
      token: shop.acme.token,
    });
    expect(answer.status).toBe(409);
    expect(
      (await shop.server.request('GET', `/products/${part.id}`, { token: shop.acme.token })).status,
    ).toBe(200);
  });
});

describe('PUT /products/prices/bulk is all or nothing', () => {
  it('one unknown product changes no price, and names the item', async () => {
    const a = await shop.acme.product({ price: 1 });
    const b = await shop.acme.product({ price: 2 });
    const answer = await shop.server.request('PUT', '/products/prices/bulk', {
      token: shop.acme.token,
      body: {
        items: [
          { product_id: a.id, price: 5 },
          { code: b.code, price: 6 },
          { code: 'NOPE-NOPE', price: 7 },
        ],
      },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['items.2.code']);
    const readA = await shop.server.request('GET', `/products/${a.id}`, { token: shop.acme.token });
    const readB = await shop.server.request('GET', `/products/${b.id}`, { token: shop.acme.token });
    expect(readA.body.data.price).toBe(1);
    expect(readB.body.data.price).toBe(2);
  });

  it("another company's product counts as unknown", async () => {
    const other = await tenant(shop.server);
    const theirs = await other.product({ price: 3 });
    const answer = await shop.server.request('PUT', '/products/prices/bulk', {
      token: shop.acme.token,
      body: { items: [{ product_id: theirs.id, price: 9 }] },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['items.0.product_id']);
    const read = await shop.server.request('GET', `/products/${theirs.id}`, { token: other.token });
    expect(read.body.data.price).toBe(3);
  });

  it.each([
    ['items is required', {}, ['items']],
    ['items has at least 1 item', { items: [] }, ['items']],
    [
      'items has at most 1000 items',
      { items: Array.from({ length: 1001 }, () => ({ product_id: 1, price: 1 })) },
      ['items'],
    ],
    [
      'an item names product_id or code',
      { items: [{ price: 1 }] },
      ['items.0.product_id', 'items.0.code'],
    ],
    [
      'an item names only one of them',
      { items: [{ product_id: 1, code: 'ABC', price: 1 }] },
      ['items.0.product_id', 'items.0.code'],
    ],
    ['price is required', { items: [{ product_id: 1 }] }, ['items.0.price']],
    ['price is at least 0', { items: [{ product_id: 1, price: -1 }] }, ['items.0.price']],
  ])('%s', async (_rule, payload, keys) => {
    const answer = await shop.server.request('PUT', '/products/prices/bulk', {
      token: shop.acme.token,
      body: payload,
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors).sort()).toEqual([...keys].sort());
  });
});

describe('categories sync and images', () => {
  it("sync refuses another company's product, keyed by position, and changes nothing", async () => {
    const category = await shop.acme.category();
    const mine = await shop.acme.product();
    await shop.server.request('PUT', `/products/categories/${category}/sync`, {
      token: shop.acme.token,
      body: { product_ids: [mine.id] },
    });
    const other = await tenant(shop.server);
    const theirs = await other.product();
    const answer = await shop.server.request('PUT', `/products/categories/${category}/sync`, {
      token: shop.acme.token,
      body: { product_ids: [theirs.id] },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['product_ids.0']);
    const read = await shop.server.request('GET', `/products/${mine.id}`, {
      token: shop.acme.token,
    });
    expect(read.body.data.categories).toEqual([category]);
  });

  it('an image url must be http(s)', async () => {
    const product = await shop.acme.product();
    const answer = await shop.server.request('POST', `/products/${product.id}/images`, {
      token: shop.acme.token,
      body: { url: 'javascript:alert(1)' },
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual(['url']);
  });

  it('deleting an image of another product is 404', async () => {
    const a = await shop.acme.product({ images: [{ url: 'https://e.io/a.png' }] });
    const b = await shop.acme.product();
    const answer = await shop.server.request(
      'DELETE',
      `/products/${b.id}/images/${a.images[0]!.id}`,
      {
        token: shop.acme.token,
      },
    );
    expect(answer.status).toBe(404);
  });
});
