import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { type FreshCompany, freshCompany } from './fresh-company.ts';

/** Relationships between customers (parents and children), as an integrator links them. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('relationships', () => {
  let co: FreshCompany;
  let holding: number;
  let branch: number;
  let shop: number;
  let loner: number;

  const link = (customer: number, related: number, direction: string) =>
    server.request('POST', `/customers/${customer}/relationships`, {
      token: co.token,
      body: { related_customer_id: related, direction },
    });
  const unlink = (customer: number, direction: string, related: number) =>
    server.request('DELETE', `/customers/${customer}/relationships/${direction}/${related}`, {
      token: co.token,
    });
  const related = async (customer: number) => {
    const answer = await co.get(`/customers/${customer}/relationships`);
    expect(answer.status).toBe(200);
    return answer.body.data.map((r: { direction: string; related_customer_id: number }) => [
      r.direction,
      r.related_customer_id,
    ]);
  };

  beforeAll(async () => {
    co = await freshCompany(server);
    holding = (await co.create({ name: 'Holding', code: 'H', type: 'J' })).id;
    branch = (await co.create({ name: 'Filial', code: 'B', type: 'J' })).id;
    shop = (await co.create({ name: 'Loja', code: 'S', type: 'J' })).id;
    loner = (await co.create({ name: 'Sozinho', code: 'L' })).id;
  });

  it('links a parent (201, Location) and a child; both sides see the link', async () => {
    const parent = await link(branch, holding, 'parent');
    expect(parent.status).toBe(201);
    expect(parent.body.data).toMatchObject({
      customer_id: branch,
      related_customer_id: holding,
      direction: 'parent',
      related_customer: { id: holding, code: 'H', name: 'Holding' },
    });
    expect(parent.headers.get('location')).toBe(
      `${server.api}/customers/${branch}/relationships/parent/${holding}`,
    );
    const child = await link(branch, shop, 'child');
    expect(child.status).toBe(201);
    expect(await related(branch)).toEqual([
      ['parent', holding],
      ['child', shop],
    ]);
    expect(await related(holding)).toEqual([['child', branch]]);
    expect(await related(shop)).toEqual([['parent', branch]]);
    expect(await related(loner)).toEqual([]);
  });

  it('the list is a Laravel page', async () => {
    const answer = await co.get(`/customers/${branch}/relationships?per_page=1&page=2`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    expect(answer.body.meta).toMatchObject({
      total: 2,
      per_page: 1,
      current_page: 2,
      last_page: 2,
    });
  });

  it.each([
    ['a self-link', () => [loner, loner, 'child'], 'A customer cannot be related to itself.'],
    ['a duplicate', () => [branch, holding, 'parent'], 'These customers are already related.'],
    [
      'the same pair the other way round',
      () => [holding, branch, 'parent'],
      'These customers are already related.',
    ],
    [
      'a cycle (the grandchild as parent of the top)',
      () => [holding, shop, 'parent'],
      'This relationship would create a cycle.',
    ],
    [
      'a cycle seen from below',
      () => [shop, holding, 'child'],
      'This relationship would create a cycle.',
    ],
    [
      'an unknown related customer',
      () => [loner, 999999, 'parent'],
      'The selected related customer id is invalid.',
    ],
  ] as [string, () => [number, number, string], string][])(
    '%s is a 422',
    async (_what, args, message) => {
      const [customer, other, direction] = args();
      const answer = await link(customer, other, direction);
      expect(answer.status).toBe(422);
      expect(answer.body.success).toBe(false);
      expect(answer.body.errors).toEqual({ related_customer_id: [message] });
    },
  );

  it('a bad direction is a 422 on direction', async () => {
    const answer = await link(loner, holding, 'sibling');
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual({ direction: ['The selected direction is invalid.'] });
  });

  it('DELETE by direction: the wrong direction is a 404, the right one 204 and gone', async () => {
    const wrong = await unlink(branch, 'child', holding);
    expect(wrong.status).toBe(404);
    expect(await related(branch)).toHaveLength(2);
    const gone = await unlink(branch, 'parent', holding);
    expect(gone.status).toBe(204);
    expect(gone.body).toBe('');
    expect(await related(branch)).toEqual([['child', shop]]);
    expect(await related(holding)).toEqual([]);
    expect((await unlink(branch, 'parent', holding)).status).toBe(404);
    // From the child's side, the same link is its parent.
    expect((await unlink(shop, 'parent', branch)).status).toBe(204);
    expect(await related(branch)).toEqual([]);
  });

  it('a bad direction in the path is a 404', async () => {
    expect((await unlink(branch, 'sibling', shop)).status).toBe(404);
  });

  it('once unlinked, the former cycle may be linked the other way', async () => {
    expect((await link(holding, shop, 'parent')).status).toBe(201);
    expect(await related(holding)).toEqual([['parent', shop]]);
  });
});
