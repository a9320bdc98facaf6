import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';

/**
 * The customer routes on a real PostgreSQL (several server instances share one), in a fresh
 * database made for this file and dropped after it.
 */

let server: TestServer;
let token: string;
let otherToken: string;

beforeAll(async () => {
  server = await startTestServerOn('postgres');
  token = await server.token(await server.createCompany('PG Co'), '*');
  otherToken = await server.token(await server.createCompany('PG Other'), '*');
});

afterAll(async () => {
  await server?.close();
});

const address = {
  zipcode: '20040020',
  street: 'Rua da Assembleia',
  district: 'Centro',
  city: 'Rio de Janeiro',
  state: 'RJ',
  number: '10',
  complement: 'sala 501',
};

describe('customers on PostgreSQL', () => {
  let id: number;

  it('runs on the postgres dialect', () => {
    expect(server.app.services.storage.dialect).toBe('postgres');
  });

  it('creates (201 + Location) and reads back by id, code and document', async () => {
    const answer = await server.request('POST', '/customers', {
      token,
      body: {
        name: 'Carioca Comércio',
        type: 'J',
        code: 'RJ-1',
        taxvat: '11.222.333/0001-81',
        email: 'contato@carioca.example',
        credit_limit: 99_999_999.99,
        addresses: [address],
      },
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    id = answer.body.data.id;
    expect(answer.headers.get('location')).toBe(`${server.api}/customers/${id}`);
    expect(answer.body.data).toMatchObject({
      code: 'RJ-1',
      taxvat: '11222333000181',
      credit_limit: 99_999_999.99,
      status: 'active',
      addresses: [{ ...address }],
    });
    for (const path of [
      `/customers/${id}`,
      '/customers/by-code/RJ-1',
      '/customers/by-document/11222333000181',
    ]) {
      const found = await server.request('GET', path, { token });
      expect(found.status, path).toBe(200);
      expect(found.body.data).toEqual(answer.body.data);
    }
  });

  it('refuses a taken code with 422, allows it in another company', async () => {
    const taken = await server.request('POST', '/customers', {
      token,
      body: { name: 'Duplicado', type: 'F', code: 'RJ-1' },
    });
    expect(taken.status).toBe(422);
    expect(taken.body.errors).toEqual({ code: ['The code has already been taken.'] });
    const elsewhere = await server.request('POST', '/customers', {
      token: otherToken,
      body: { name: 'Outro Lugar', type: 'F', code: 'RJ-1' },
    });
    expect(elsewhere.status).toBe(201);
  });

  it('lists with numbers (not strings) in meta, filters and case-insensitive search', async () => {
    for (let n = 2; n <= 4; n++) {
      const made = await server.request('POST', '/customers', {
        token,
        body: { name: `Filial Número ${n}`, type: 'F', code: `RJ-${n}` },
      });
      expect(made.status).toBe(201);
    }
    const page = await server.request('GET', '/customers?per_page=2&page=2', { token });
    expect(page.status).toBe(200);
    expect(page.body.meta).toEqual({
      current_page: 2,
      from: 3,
      last_page: 2,
      path: `${server.api}/customers`,
      per_page: 2,
      to: 4,
      total: 4,
    });
    const search = await server.request('GET', '/customers?search=FILIAL', { token });
    expect(search.body.data.map((c: { code: string }) => c.code)).toEqual(['RJ-2', 'RJ-3', 'RJ-4']);
    const byTaxvat = await server.request('GET', '/customers?taxvat=11222333000181', { token });
    expect(byTaxvat.body.data.map((c: { id: number }) => c.id)).toEqual([id]);
    const byType = await server.request('GET', '/customers?type=J', { token });
    expect(byType.body.meta.total).toBe(1);
    const since = await server.request(
      'GET',
      `/customers?updated_since=${encodeURIComponent('2000-01-01T00:00:00Z')}`,
      { token },
    );
    expect(since.body.meta.total).toBe(4);
    const other = await server.request('GET', '/customers', { token: otherToken });
    expect(other.body.meta.total).toBe(1);
  });

  it('PATCH changes only what is sent; PUT replaces', async () => {
    const patched = await server.request('PATCH', `/customers/${id}`, {
      token,
      body: { status: 'inactive', credit_limit: 0.1 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      status: 'inactive',
      credit_limit: 0.1,
      code: 'RJ-1',
      addresses: [{ ...address }],
    });
    const replaced = await server.request('PUT', `/customers/${id}`, {
      token,
      body: { name: 'Carioca Renomeada', type: 'J', code: 'RJ-1' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toMatchObject({
      name: 'Carioca Renomeada',
      taxvat: null,
      addresses: [],
    });
  });

  it('links, lists, refuses a cycle and unlinks relationships', async () => {
    const codes = await server.request('GET', '/customers?search=RJ-', { token });
    const [top, middle, bottom] = codes.body.data.map((c: { id: number }) => c.id) as number[];
    const link = (customer: number, related: number, direction: string) =>
      server.request('POST', `/customers/${customer}/relationships`, {
        token,
        body: { related_customer_id: related, direction },
      });
    expect((await link(middle!, top!, 'parent')).status).toBe(201);
    expect((await link(middle!, bottom!, 'child')).status).toBe(201);
    const cycle = await link(top!, bottom!, 'parent');
    expect(cycle.status).toBe(422);
    expect(cycle.body.errors).toEqual({
      related_customer_id: ['This relationship would create a cycle.'],
    });
    const duplicate = await link(top!, middle!, 'child');
    expect(duplicate.status).toBe(422);
    const list = await server.request('GET', `/customers/${middle}/relationships`, { token });
    expect(list.status).toBe(200);
    expect(
      list.body.data.map((r: { direction: string; related_customer_id: number }) => [
        r.direction,
        r.related_customer_id,
      ]),
    ).toEqual([
      ['parent', top],
      ['child', bottom],
    ]);
    expect(list.body.meta.total).toBe(2);
    const removed = await server.request(
      'DELETE',
      `/customers/${middle}/relationships/parent/${top}`,
      { token },
    );
    expect(removed.status).toBe(204);
    const after = await server.request('GET', `/customers/${top}/relationships`, { token });
    expect(after.body.data).toEqual([]);
  });

  it('another company gets 404 on the record', async () => {
    for (const path of [`/customers/${id}`, '/customers/by-code/RJ-2']) {
      const answer = await server.request('GET', path, { token: otherToken });
      expect(answer.status, path).toBe(404);
    }
    const patch = await server.request('PATCH', `/customers/${id}`, {
      token: otherToken,
      body: { name: 'Invasor' },
    });
    expect(patch.status).toBe(404);
  });

  it('concurrent creates with one code: one 201, the rest 422, never a 500', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, n) =>
        server.request('POST', '/customers', {
          token,
          body: { name: `Corrida ${n}`, type: 'F', code: 'RACE' },
        }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    for (const answer of answers.filter((a) => a.status === 422)) {
      expect(answer.body.errors).toEqual({ code: ['The code has already been taken.'] });
    }
  });

  it('concurrent PATCHes to one code: one wins, the rest 422', async () => {
    const ids: number[] = [];
    for (let n = 0; n < 4; n++) {
      const made = await server.request('POST', '/customers', {
        token,
        body: { name: `Troca ${n}`, type: 'F' },
      });
      ids.push(made.body.data.id);
    }
    const answers = await Promise.all(
      ids.map((customer) =>
        server.request('PATCH', `/customers/${customer}`, { token, body: { code: 'SWAP' } }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 422, 422, 422]);
  });

  it('concurrent opposite links cannot make a cycle; concurrent duplicates make one link', async () => {
    const make = async (name: string) =>
      (await server.request('POST', '/customers', { token, body: { name, type: 'J' } })).body.data
        .id as number;
    for (let round = 0; round < 3; round++) {
      const a = await make(`Ciclo A${round}`);
      const b = await make(`Ciclo B${round}`);
      const answers = await Promise.all([
        server.request('POST', `/customers/${a}/relationships`, {
          token,
          body: { related_customer_id: b, direction: 'child' },
        }),
        server.request('POST', `/customers/${b}/relationships`, {
          token,
          body: { related_customer_id: a, direction: 'child' },
        }),
        server.request('POST', `/customers/${a}/relationships`, {
          token,
          body: { related_customer_id: b, direction: 'child' },
        }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([201, 422, 422]);
      const links = await server.request('GET', `/customers/${a}/relationships`, { token });
      expect(links.body.meta.total).toBe(1);
    }
  });
});
