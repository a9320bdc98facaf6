import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxId } from '../../shared/http.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { registerAgent, type TestAgent } from '../printing/helpers.ts';
import { expectError } from './error-answers.ts';

/**
 * Inputs that one database stores and the other refuses must get one answer on both
 * (docs/security.md): a NUL character or an unpaired surrogate in any text is 422, an id
 * past 2^31 − 1 is 404 in a path and 422 in a body or query, and `%`, `_`, `\` in a search
 * match themselves.
 */

const product = (code: string, name: string) => ({
  code,
  name,
  price: 10,
  unit: 'UN',
  manage_stock: false,
});

describe.each(databaseKinds)('on %s', (kind) => {
  let server: TestServer;
  let token: string;
  let agent: TestAgent;
  let customerId: number;
  let productId: number;

  beforeAll(async () => {
    server = await startTestServerOn(kind);
    const company = await server.createCompany('Inputs Co');
    token = await server.token(company, '*');
    agent = await registerAgent(server, company);
    const customer = await server.request('POST', '/customers', {
      token,
      body: { name: 'Cliente Base', type: 'F', code: 'BASE' },
    });
    customerId = customer.body.data.id;
    const created = await server.request('POST', '/products', {
      token,
      body: product('BASE-1', 'Produto Base'),
    });
    productId = created.body.data.id;
  });
  afterAll(() => server?.close());

  const count = async (path: string) =>
    (await server.request('GET', path, { token })).body.meta.total as number;

  describe('a NUL character is refused with 422 wherever text goes', () => {
    it.each<[string, string, string, () => unknown, string]>([
      ['a customer name', 'POST', '/customers', () => ({ name: 'Ana\u0000', type: 'F' }), 'name'],
      [
        'a nested address field',
        'POST',
        '/customers',
        () => ({
          name: 'Ana Souza',
          type: 'F',
          addresses: [
            {
              zipcode: '20040020',
              street: 'Rua\u0000',
              district: 'Centro',
              city: 'Rio',
              state: 'RJ',
              number: '1',
            },
          ],
        }),
        'addresses.0.street',
      ],
      ['a product code', 'POST', '/products', () => product('NUL\u0000', 'Produto'), 'code'],
      [
        'a customer code on PATCH',
        'PATCH',
        '/customers/{customer}',
        () => ({ code: '\u0000' }),
        'code',
      ],
      [
        'a stock observation',
        'PUT',
        '/inventory/stock/products/{product}',
        () => ({ quantity: 1, warehouse_code: 'W1', observation: 'x\u0000' }),
        'observation',
      ],
      [
        'a print job title',
        'POST',
        '/printing/jobs',
        () => ({
          route: 'receipts',
          title: '\u0000',
          content_type: 'text/plain',
          content_base64: 'aGk=',
        }),
        'title',
      ],
    ])('in %s', async (_what, method, path, body, field) => {
      const answer = await server.request(
        method,
        path.replace('{customer}', String(customerId)).replace('{product}', String(productId)),
        { token, body: body() },
      );
      expectError(answer, 422, 'validation_failed');
      expect(answer.body.errors[field]).toEqual([
        `The ${field.includes('.') ? field : field.replaceAll('_', ' ')} field must not contain the NUL character.`,
      ]);
    });

    it.each([
      ['?search=', '/customers?search=a%00b', 'search'],
      ['?code=', '/customers?code=%00', 'code'],
      ['?q=', '/search/products?q=%00', 'q'],
      ['?search= on products', '/products?search=x%00', 'search'],
    ])('in the query value %s', async (_what, path, field) => {
      const answer = await server.request('GET', path, { token });
      expectError(answer, 422, 'validation_failed');
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    });

    it.each([
      ['a customer code', 'GET', '/customers/by-code/a%00b', 'code'],
      ['a product code', 'GET', '/products/by-code/%00', 'code'],
      ['an id', 'GET', '/customers/1%00', 'customer'],
      ['a stock product code', 'PUT', '/inventory/stock/products/by-code/%00', 'code'],
    ])('in the path value of %s', async (_what, method, path, field) => {
      const answer = await server.request(method, path, {
        token,
        body: method === 'GET' ? undefined : { quantity: 1, warehouse_code: 'W1' },
      });
      expectError(answer, 422, 'validation_failed');
      expect(Object.keys(answer.body.errors)).toEqual([field]);
    });

    it('and nothing was stored', async () => {
      expect(await count('/customers')).toBe(1);
      expect(await count('/products')).toBe(1);
    });
  });

  describe('an unpaired surrogate is refused with 422', () => {
    it.each([
      ['a high surrogate alone', '"Ana \\ud800 Souza"'],
      ['a low surrogate alone', '"\\udfff Ana Souza"'],
      ['a pair in the wrong order', '"Ana \\udc00\\ud800"'],
    ])('%s, in a customer name', async (_what, name) => {
      const answer = await server.request('POST', '/customers', {
        token,
        rawBody: `{"name": ${name}, "type": "F"}`,
        headers: { 'content-type': 'application/json' },
      });
      expectError(answer, 422, 'validation_failed');
      expect(answer.body.errors.name[0]).toMatch(/unpaired surrogate/);
    });

    it('while a proper pair (an emoji) is text like any other', async () => {
      const answer = await server.request('POST', '/customers', {
        token,
        rawBody: '{"name": "Ana \\ud83d\\ude00 Souza", "type": "F"}',
        headers: { 'content-type': 'application/json' },
      });
      expect(answer.status).toBe(201);
      expect(answer.body.data.name).toBe('Ana 😀 Souza');
    });
  });

  describe('text that is not UTF-8', () => {
    it('in a JSON body: 400, and the message says so', async () => {
      const answer = await server.request('POST', '/customers', {
        token,
        rawBody: Buffer.concat([
          Buffer.from('{"name": "Jos'),
          Buffer.from([0xe9]), // 'é' in ISO-8859-1: no UTF-8 at all
          Buffer.from('", "type": "F"}'),
        ]),
        headers: { 'content-type': 'application/json' },
      });
      expectError(answer, 400, 'malformed_json');
      expect(answer.body.message).toBe('The request body is not valid UTF-8 text.');
    });

    it.each([
      ['a byte that starts no character', '/customers?search=%FF'],
      ['an encoded surrogate', '/customers?search=%ED%A0%80'],
    ])('in the query string (%s): 400', async (_what, path) => {
      const answer = await server.request('GET', path, { token });
      expectError(answer, 400, 'bad_request');
      expect(answer.body.message).toBe('The query string is not valid percent-encoded UTF-8.');
    });

    it('while a lone % is the character itself, as browsers read it', async () => {
      const answer = await server.request('GET', '/customers?search=100%', { token });
      expect(answer.status).toBe(200);
    });
  });

  describe(`ids past ${maxId} (2^31 − 1) get the same answer as any unknown id`, () => {
    const past = [maxId + 1, 2 ** 53 - 1];

    it.each(past)('%s in a path is 404', async (id) => {
      for (const [method, path] of [
        ['GET', `/customers/${id}`],
        ['GET', `/customers/${id}/relationships`],
        ['DELETE', `/customers/${customerId}/relationships/parent/${id}`],
        ['GET', `/products/${id}`],
        ['DELETE', `/products/${productId}/images/${id}`],
        ['PUT', `/products/categories/${id}/sync`],
        ['GET', `/offers/${id}`],
        ['GET', `/printing/jobs/${id}`],
      ] as const) {
        const body = method === 'PUT' ? { product_ids: [] } : undefined;
        const answer = await server.request(method, path, { token, body });
        expectError(answer, 404, 'not_found');
      }
      const agentAnswer = await agent.call('POST', `/printing/jobs/${id}/confirm`);
      expectError(agentAnswer, 404, 'not_found');
    });

    it('the largest id itself is a well-formed id that names nothing (404)', async () => {
      expectError(await server.request('GET', `/customers/${maxId}`, { token }), 404);
      expectError(await server.request('GET', `/printing/jobs/${maxId}`, { token }), 404);
    });

    it.each(past)('%s in a body or a query is 422, naming the field', async (id) => {
      const cases: [string, string, unknown, string][] = [
        [
          'POST',
          '/offers',
          { customer_id: id, items: [{ product_id: 1, quantity: 1 }] },
          'customer_id',
        ],
        [
          'POST',
          '/offers/quote',
          { customer_id: customerId, items: [{ product_id: id, quantity: 1 }] },
          'items.0.product_id',
        ],
        [
          'POST',
          `/customers/${customerId}/relationships`,
          { related_customer_id: id, direction: 'parent' },
          'related_customer_id',
        ],
        [
          'PUT',
          `/inventory/stock/products/${productId}`,
          { quantity: 1, warehouse_id: id },
          'warehouse_id',
        ],
        ['PUT', '/products/categories/1/sync', { product_ids: [id] }, 'product_ids.0'],
        [
          'POST',
          '/products',
          { ...product('IDS-1', 'Produto Ids'), categories: [id] },
          'categories.0',
        ],
        [
          'PUT',
          '/products/prices/bulk',
          { items: [{ product_id: id, price: 1 }] },
          'items.0.product_id',
        ],
        ['GET', `/offers?customer_id=${id}`, undefined, 'customer_id'],
      ];
      for (const [method, path, body, field] of cases) {
        const answer = await server.request(method, path, { token, body });
        expectError(answer, 422, 'validation_failed');
        expect(answer.body.errors[field], `${method} ${path}`).toEqual([
          `The ${field.includes('.') ? field : field.replaceAll('_', ' ')} field must not be greater than ${maxId}.`,
        ]);
      }
      const heartbeat = await agent.call('POST', '/printing/heartbeat', { held_job_ids: [id] });
      expectError(heartbeat, 422, 'validation_failed');
      expect(Object.keys(heartbeat.body.errors)).toEqual(['held_job_ids.0']);
    });

    it('a page far past the last is an empty page, not an error', async () => {
      for (const page of [maxId + 1, 2 ** 53 - 1]) {
        const answer = await server.request('GET', `/customers?page=${page}`, { token });
        expect(answer.status).toBe(200);
        expect(answer.body.data).toEqual([]);
      }
    });
  });

  describe('%, _ and \\ in a search match themselves', () => {
    const names = ['Loja 100% Algodao', 'Loja_Um', 'Loja Back\\Slash', 'Loja Comum'];
    beforeAll(async () => {
      for (const [index, name] of names.entries()) {
        const customer = await server.request('POST', '/customers', {
          token,
          body: { name, type: 'J' },
        });
        expect(customer.status).toBe(201);
        const created = await server.request('POST', '/products', {
          token,
          body: product(`LIKE-${index}`, name),
        });
        expect(created.status).toBe(201);
      }
    });

    const found = async (path: string) => {
      const answer = await server.request('GET', path, { token });
      expect(answer.status).toBe(200);
      return (answer.body.data as { name: string }[]).map((record) => record.name).sort();
    };

    it.each([
      ['%', ['Loja 100% Algodao']],
      ['_', ['Loja_Um']],
      ['\\', ['Loja Back\\Slash']],
      ['a_u', ['Loja_Um']],
      ['100%', ['Loja 100% Algodao']],
      ['Loja', names.toSorted()],
    ])('%s', async (term, expected) => {
      const encoded = encodeURIComponent(term);
      expect(await found(`/customers?search=${encoded}`)).toEqual(expected);
      expect(await found(`/products?search=${encoded}`)).toEqual(expected);
      expect(await found(`/search/products?q=${encoded}`)).toEqual(expected);
    });

    it('and still ignore letter case', async () => {
      expect(await found('/customers?search=loja_um')).toEqual(['Loja_Um']);
      expect(await found('/search/products?q=LOJA_UM')).toEqual(['Loja_Um']);
    });
  });
});
