import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { freshCompany } from './fresh-company.ts';
import { paulista } from './payloads.ts';

/** Customers, the way an integrator uses them (docs/reference.md). */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const address = paulista;

describe('create and read', () => {
  let co: Awaited<ReturnType<typeof freshCompany>>;
  beforeAll(async () => {
    co = await freshCompany(server);
  });

  it('POST answers 201 with the record in data and a Location that reads it back', async () => {
    const answer = await server.request('POST', '/customers', {
      token: co.token,
      body: {
        name: 'Maria Silva',
        type: 'F',
        code: 'MARIA',
        taxvat: '123.456.789-01',
        telephone: '(11) 3333-4444',
        mobile: '11999998888',
        email: 'maria@example.com',
        credit_limit: 1234.56,
        addresses: [address, { ...address, number: '2', complement: 'fundos' }],
      },
    });
    expect(answer.status).toBe(201);
    const data = answer.body.data;
    expect(data).toMatchObject({
      name: 'Maria Silva',
      type: 'F',
      code: 'MARIA',
      status: 'active',
      taxvat: '12345678901',
      telephone: '(11) 3333-4444',
      email: 'maria@example.com',
      credit_limit: 1234.56,
    });
    expect(data.addresses).toHaveLength(2);
    expect(data.addresses[0]).toMatchObject({ ...address, complement: null });
    expect(data.addresses[1]).toMatchObject({ number: '2', complement: 'fundos' });
    // ISO 8601 UTC to the second (docs/reference.md).
    expect(data.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // RFC 9110 §15.3.2: 201 names the new resource in Location.
    const location = answer.headers.get('location');
    expect(location).toBe(`${server.api}/customers/${data.id}`);
    const again = await fetch(location!, { headers: { authorization: `Bearer ${co.token}` } });
    expect(again.status).toBe(200);
    expect((await again.json()).data).toEqual(data);
  });

  it('GET by id, by code and by document find the same record', async () => {
    const made = await co.create({
      name: 'Loja do João',
      type: 'J',
      code: 'joão/01 a',
      taxvat: '12.345.678/0001-90',
    });
    const byId = await co.get(`/customers/${made.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body.data).toEqual(made);
    const byCode = await co.get(`/customers/by-code/${encodeURIComponent('joão/01 a')}`);
    expect(byCode.status).toBe(200);
    expect(byCode.body.data.id).toBe(made.id);
    const byDocument = await co.get('/customers/by-document/12345678000190');
    expect(byDocument.status).toBe(200);
    expect(byDocument.body.data.id).toBe(made.id);
  });

  it.each([
    ['a document with punctuation', '/customers/by-document/12.345.678%2F0001-90'],
    ['a document with letters', '/customers/by-document/12345abc'],
    ['an unknown document', '/customers/by-document/99999999999'],
    ['an unknown code', '/customers/by-code/NOPE'],
    ['an unknown id', '/customers/999999'],
    ['id 0', '/customers/0'],
    ['a negative id', '/customers/-1'],
    ['a non-numeric id', '/customers/abc'],
  ])('%s is a 404', async (_what, path) => {
    const answer = await co.get(path);
    expect(answer.status).toBe(404);
    expect(answer.body.success).toBe(false);
  });
});

describe('list', () => {
  let co: Awaited<ReturnType<typeof freshCompany>>;
  const ids: number[] = [];
  let since: string;

  beforeAll(async () => {
    co = await freshCompany(server);
    for (let n = 1; n <= 17; n++) {
      const made = await co.create({
        name: `Cliente ${String(n).padStart(2, '0')}`,
        code: `L${n}`,
        type: n % 2 === 0 ? 'J' : 'F',
        email: `c${n}@shop.example`,
        taxvat: String(10_000_000_000 + n),
      });
      ids.push(made.id);
    }
    const special = await co.create({
      name: 'Zé Especial',
      code: 'SPECIAL',
      email: 'ze@other.example',
    });
    ids.push(special.id);
    await server.request('PATCH', `/customers/${ids[2]}`, {
      token: co.token,
      body: { status: 'inactive' },
    });
    server.clock.advance(60_000);
    since = new Date(server.clock.now().getTime() - 1000).toISOString();
    await server.request('PATCH', `/customers/${ids[4]}`, {
      token: co.token,
      body: { telephone: '1' },
    });
  });

  it('is a Laravel page: 15 by default, with links and meta', async () => {
    const answer = await co.get('/customers');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(15);
    expect(answer.body.data.map((c: { id: number }) => c.id)).toEqual(ids.slice(0, 15));
    const path = `${server.api}/customers`;
    expect(answer.body.meta).toEqual({
      current_page: 1,
      from: 1,
      last_page: 2,
      path,
      per_page: 15,
      to: 15,
      total: 18,
    });
    expect(answer.body.links).toEqual({
      first: `${path}?page=1`,
      last: `${path}?page=2`,
      prev: null,
      next: `${path}?page=2`,
    });
  });

  it('page and per_page walk the list; links keep per_page and the filters', async () => {
    const answer = await co.get('/customers?per_page=5&page=2&type=F');
    expect(answer.status).toBe(200);
    // Type F: the odd ones (9) and the special one: 10 in all.
    expect(answer.body.meta).toMatchObject({
      current_page: 2,
      from: 6,
      to: 10,
      total: 10,
      last_page: 2,
      per_page: 5,
    });
    expect(answer.body.data).toHaveLength(5);
    expect(answer.body.links.prev).toBe(`${server.api}/customers?type=F&per_page=5&page=1`);
    expect(answer.body.links.next).toBeNull();
    const next = await fetch(answer.body.links.prev, {
      headers: { authorization: `Bearer ${co.token}` },
    });
    const first = await next.json();
    expect(first.meta.current_page).toBe(1);
    expect(first.data.every((c: { type: string }) => c.type === 'F')).toBe(true);
  });

  it('a page past the end is empty, with from and to null', async () => {
    const answer = await co.get('/customers?page=9');
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([]);
    expect(answer.body.meta).toMatchObject({ current_page: 9, from: null, to: null, total: 18 });
  });

  it('per_page 100 is the maximum; 101 is a 422', async () => {
    const max = await co.get('/customers?per_page=100');
    expect(max.status).toBe(200);
    expect(max.body.data).toHaveLength(18);
    const over = await co.get('/customers?per_page=101');
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({
      per_page: ['The per page field must not be greater than 100.'],
    });
  });

  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=abc', 'per_page'],
    ['page=0', 'page'],
    ['type=X', 'type'],
    ['status=deleted', 'status'],
    ['updated_since=yesterday', 'updated_since'],
  ])('?%s is a 422 on %s', async (query, key) => {
    const answer = await co.get(`/customers?${query}`);
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.errors)).toEqual([key]);
  });

  it.each([
    ['search by name, case-insensitive', 'search=especial', ['SPECIAL']],
    ['search by email', 'search=other.example', ['SPECIAL']],
    ['search by code', 'search=L1', ['L1', 'L10', 'L11', 'L12', 'L13', 'L14', 'L15', 'L16', 'L17']],
    ['search by tax id', 'search=10000000017', ['L17']],
    ['code, exact', 'code=L1', ['L1']],
    ['taxvat, digits-only', 'taxvat=100.000.000-07', ['L7']],
    ['type J', 'type=J&per_page=100', ['L2', 'L4', 'L6', 'L8', 'L10', 'L12', 'L14', 'L16']],
    ['status inactive', 'status=inactive', ['L3']],
    ['updated_since', 'updated_since=SINCE', ['L5']],
    ['search and type together', 'search=Cliente 1&type=J', ['L10', 'L12', 'L14', 'L16']],
    ['nothing matches', 'search=nobody-at-all', []],
  ])('%s', async (_what, query, codes) => {
    const answer = await co.get(
      `/customers?${query.replace('SINCE', encodeURIComponent(since)).replace(' ', '%20')}`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((c: { code: string }) => c.code)).toEqual(codes);
    expect(answer.body.meta.total).toBe(codes.length);
  });
});

describe('PUT replaces, PATCH changes only what is sent', () => {
  let co: Awaited<ReturnType<typeof freshCompany>>;
  beforeAll(async () => {
    co = await freshCompany(server);
  });

  it('PATCH keeps every field not sent and moves updated_at', async () => {
    const made = await co.create({
      name: 'Antes',
      code: 'P1',
      email: 'a@example.com',
      credit_limit: 10,
      addresses: [address],
    });
    server.clock.advance(2000);
    const answer = await server.request('PATCH', `/customers/${made.id}`, {
      token: co.token,
      body: { name: 'Depois', credit_limit: 20.1 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({
      ...made,
      name: 'Depois',
      credit_limit: 20.1,
      updated_at: answer.body.data.updated_at,
    });
    expect(answer.body.data.updated_at > (made.updated_at as string)).toBe(true);
    expect((await co.get(`/customers/${made.id}`)).body.data).toEqual(answer.body.data);
  });

  it('PATCH with addresses replaces the list; null clears an optional field', async () => {
    const made = await co.create({
      name: 'Endereços',
      code: 'P2',
      email: 'x@example.com',
      addresses: [address],
    });
    const answer = await server.request('PATCH', `/customers/${made.id}`, {
      token: co.token,
      body: {
        email: null,
        addresses: [
          { ...address, city: 'Campinas' },
          { ...address, city: 'Santos' },
        ],
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data.email).toBeNull();
    expect(answer.body.data.code).toBe('P2');
    expect(answer.body.data.addresses.map((a: { city: string }) => a.city)).toEqual([
      'Campinas',
      'Santos',
    ]);
  });

  it('PUT replaces the whole record: optional fields left out become empty', async () => {
    const made = await co.create({
      name: 'Completo',
      code: 'P3',
      taxvat: '111',
      email: 'c@example.com',
      mobile: '9',
      credit_limit: 5,
      addresses: [address],
    });
    const answer = await server.request('PUT', `/customers/${made.id}`, {
      token: co.token,
      body: { name: 'Só o nome', type: 'J' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      id: made.id,
      name: 'Só o nome',
      type: 'J',
      code: null,
      taxvat: null,
      email: null,
      mobile: null,
      credit_limit: null,
      addresses: [],
    });
  });

  it('PUT and PATCH on an unknown customer are 404', async () => {
    const put = await server.request('PUT', '/customers/999999', {
      token: co.token,
      body: { name: 'Ninguém', type: 'F' },
    });
    expect(put.status).toBe(404);
    const patch = await server.request('PATCH', '/customers/999999', {
      token: co.token,
      body: { name: 'Ninguém' },
    });
    expect(patch.status).toBe(404);
  });
});
