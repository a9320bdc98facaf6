import { describe, expect, it } from 'vitest';
import { catalogOfFile } from '../helpers/catalog.ts';
import { body, uniq } from './product-body.ts';

/**
 * Each rule of the product payload (docs/reference.md) and of the search query, through the
 * real pipeline: 422 on the field that breaks it, and the values on each bound, accepted.
 */

const shop = catalogOfFile();

// The product create payload: one row per rule, the field it must be reported on.
const rejected: [rule: string, override: Record<string, unknown>, key: string][] = [
  ['manage_stock is required', { manage_stock: undefined }, 'manage_stock'],
  ['manage_stock is a boolean', { manage_stock: 'yes' }, 'manage_stock'],
  ['code is required', { code: undefined }, 'code'],
  ['code has at least 3 characters', { code: 'AB' }, 'code'],
  ['code has at most 100 characters', { code: 'C'.repeat(101) }, 'code'],
  ['name is required', { name: undefined }, 'name'],
  ['name has at least 3 characters', { name: 'AB' }, 'name'],
  ['name has at most 255 characters', { name: 'N'.repeat(256) }, 'name'],
  ['price is required', { price: undefined }, 'price'],
  ['price is a number', { price: '10' }, 'price'],
  ['price is at least 0', { price: -0.01 }, 'price'],
  ['price has at most 2 decimals', { price: 1.005 }, 'price'],
  ['unit is required', { unit: undefined }, 'unit'],
  ['unit has at least 1 character', { unit: '' }, 'unit'],
  ['unit has at most 10 characters', { unit: 'U'.repeat(11) }, 'unit'],
  ['type is one of SIMPLE, ASSEMBLY, VARIATION', { type: 'KIT' }, 'type'],
  ['condition is one of NOT_SPECIFIED, NEW, USED', { condition: 'BROKEN' }, 'condition'],
  ['ncm holds digits only', { ncm: '12a4' }, 'ncm'],
  ['ncm has at least 2 digits', { ncm: '1' }, 'ncm'],
  ['ncm has at most 8 digits', { ncm: '123456789' }, 'ncm'],
  ['categories is an array', { categories: 3 }, 'categories'],
  ['categories holds integers', { categories: ['a'] }, 'categories.0'],
  ['categories holds ids >= 1', { categories: [0] }, 'categories.0'],
  ['images is an array', { images: 'x' }, 'images'],
  ['images need a url', { images: [{ alt_text: 'x' }] }, 'images.0.url'],
  ['image url is a URI', { images: [{ url: 'not a url' }] }, 'images.0.url'],
  [
    'image alt_text is a string',
    { images: [{ url: 'https://e.io/a.png', alt_text: 5 }] },
    'images.0.alt_text',
  ],
  ['assembly is required when type is ASSEMBLY', { type: 'ASSEMBLY' }, 'assembly'],
  [
    'assembly is prohibited unless type is ASSEMBLY',
    { assembly: { components: [{ product_id: 1, quantity: 1 }] } },
    'assembly',
  ],
  [
    'assembly needs components',
    { type: 'ASSEMBLY', assembly: { components: [] } },
    'assembly.components',
  ],
  [
    'component quantity is above 0',
    { type: 'ASSEMBLY', assembly: { components: [{ product_id: 1, quantity: 0 }] } },
    'assembly.components.0.quantity',
  ],
  [
    'component quantity has at most 3 decimals',
    { type: 'ASSEMBLY', assembly: { components: [{ product_id: 1, quantity: 0.0001 }] } },
    'assembly.components.0.quantity',
  ],
];

describe('POST /products refuses each rule of the payload with 422 on its field', () => {
  it.each(rejected)('%s', async (_rule, override, key) => {
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body(override),
    });
    expect(answer.status).toBe(422);
    expect(answer.body.success).toBe(false);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });
});

describe('POST /products accepts the boundary values', () => {
  const accepted: [string, () => Record<string, unknown>][] = [
    ['code of 3 characters', () => ({ code: uniq(3) })],
    ['code of 100 characters', () => ({ code: uniq(100) })],
    ['name of 3 characters', () => ({ name: 'abc' })],
    ['name of 255 characters', () => ({ name: 'n'.repeat(255) })],
    ['price 0', () => ({ price: 0 })],
    ['price with 2 decimals', () => ({ price: 0.01 })],
    ['unit of 1 character', () => ({ unit: 'U' })],
    ['unit of 10 characters', () => ({ unit: 'U'.repeat(10) })],
    ['ncm of 2 digits', () => ({ ncm: '12' })],
    ['ncm of 8 digits', () => ({ ncm: '12345678' })],
    ['each type but ASSEMBLY without assembly', () => ({ type: 'VARIATION' })],
    ['each condition', () => ({ condition: 'USED' })],
    ['manage_stock false', () => ({ manage_stock: false })],
    ['an image without alt_text', () => ({ images: [{ url: 'http://e.io/a.png' }] })],
  ];
  it.each(accepted)('%s', async (_case, override) => {
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body(override()),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  });

  it('defaults type to SIMPLE and condition to NOT_SPECIFIED', async () => {
    const answer = await shop.server.request('POST', '/products', {
      token: shop.acme.token,
      body: body(),
    });
    expect(answer.body.data.type).toBe('SIMPLE');
    expect(answer.body.data.condition).toBe('NOT_SPECIFIED');
  });
});

describe('PATCH validates the fields it is sent', () => {
  it.each(rejected.filter(([, override]) => Object.values(override).every((v) => v !== undefined)))(
    '%s',
    async (_rule, override, key) => {
      const product = await shop.acme.product();
      const answer = await shop.server.request('PATCH', `/products/${product.id}`, {
        token: shop.acme.token,
        body: override,
      });
      expect(answer.status).toBe(422);
      expect(Object.keys(answer.body.errors)).toEqual([key]);
    },
  );
});

describe('GET /search/products', () => {
  it.each([
    ['q is required', '', 'q'],
    ['q has at least 1 character', '?q=', 'q'],
    ['q has at most 255 characters', `?q=${'q'.repeat(256)}`, 'q'],
    ['per_page is at least 1', '?q=a&per_page=0', 'per_page'],
    ['per_page is at most 100', '?q=a&per_page=101', 'per_page'],
  ])('%s', async (_rule, search, key) => {
    const answer = await shop.server.request('GET', `/search/products${search}`, {
      token: shop.acme.token,
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });

  it.each([
    ['q of 1 character', '?q=a'],
    ['q of 255 characters', `?q=${'q'.repeat(255)}`],
    ['per_page 1', '?q=a&per_page=1'],
    ['per_page 100', '?q=a&per_page=100'],
  ])('accepts %s', async (_case, search) => {
    const answer = await shop.server.request('GET', `/search/products${search}`, {
      token: shop.acme.token,
    });
    expect(answer.status).toBe(200);
  });
});
