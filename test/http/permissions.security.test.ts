import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../server/http/route.ts';
import { apiRoutes } from '../../server/routes.ts';
import { permissions as allPermissions, type Permission } from '../../shared/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { concretePath, label } from './route-samples.ts';

/**
 * The permission matrix, read from the route table itself: a route added later is covered
 * without touching this file (docs/reference.md: permissions; a 403 names the permission).
 */

type Guarded = AnyRoute & { access: { permission: Permission; alsoAccepts?: Permission[] } };

const guarded = apiRoutes.filter((route): route is Guarded => typeof route.access === 'object');
const accepted = (route: Guarded) => [route.access.permission, ...(route.access.alsoAccepts ?? [])];

/** The smallest request the route takes: its path with sample values, `{}` as the body. */
function requestFor(route: AnyRoute, token: string) {
  return server.request(route.method, concretePath(route), {
    token,
    ...(route.body ? { body: {} } : {}),
  });
}

let server: TestServer;
let companyId: number;
let customerId: number;

beforeAll(async () => {
  server = await startTestServer();
  companyId = await server.createCompany('Matrix Co');
  const admin = await server.token(companyId, '*');
  // Record 1 exists, so that reads with the permission reach the handler and answer 200.
  const made = await server.request('POST', '/customers', {
    token: admin,
    body: { name: 'Cliente Um', type: 'F', code: 'a', taxvat: '1' },
  });
  customerId = made.body.data.id;
});
afterAll(() => server.close());

describe('the permission matrix', () => {
  it('covers every customer route of docs/reference.md, at least', () => {
    expect(customerId).toBe(1);
    const customerRoutes = guarded.filter((route) => route.path.startsWith('/customers'));
    // GET list, by-code, by-document, by id, POST, PUT, PATCH, relationships list/create/delete.
    expect(customerRoutes.length).toBeGreaterThanOrEqual(10);
    for (const route of guarded) {
      expect(allPermissions).toContain(route.access.permission);
    }
  });

  describe.each(guarded.map((route) => [label(route), route] as const))('%s', (_label, route) => {
    it('a token without its permission gets 403 naming the permission', async () => {
      const others = allPermissions.filter((p) => !accepted(route).includes(p));
      for (const held of [others, [] as Permission[]]) {
        const token = await server.token(companyId, held);
        const answer = await requestFor(route, token);
        expect(answer.status).toBe(403);
        expect(answer.body.success).toBe(false);
        for (const permission of accepted(route)) {
          expect(answer.body.message).toContain(permission);
        }
      }
    });

    it.each(accepted(route))('a token with only %s is let through', async (permission) => {
      const token = await server.token(companyId, [permission]);
      const answer = await requestFor(route, token);
      expect(answer.status, JSON.stringify(answer.body)).not.toBe(403);
      expect(answer.status).not.toBe(401);
      expect(answer.status).toBeLessThan(500);
    });
  });

  it('a route that needs only a token takes a token with no permission', async () => {
    const tokenRoutes = apiRoutes.filter((route) => route.access === 'token');
    expect(tokenRoutes.map(label)).toContain('GET /me');
    const token = await server.token(companyId, []);
    for (const route of tokenRoutes) {
      const answer = await requestFor(route, token);
      expect(answer.status, label(route)).not.toBe(403);
      expect(answer.status, label(route)).not.toBe(401);
    }
  });

  /** A CloudPRNT printer's routes take no token but the printer's own basic credentials. */
  const printerRoutes = apiRoutes.filter((route) => route.path === '/cloudprnt');

  it('public routes need no token', async () => {
    const publicRoutes = apiRoutes.filter(
      (route) => route.access === 'public' && !printerRoutes.includes(route),
    );
    expect(publicRoutes.map(label)).toContain('GET /health');
    for (const route of publicRoutes) {
      const answer = await server.request(route.method, concretePath(route));
      expect(answer.status, label(route)).not.toBe(401);
      expect(answer.status, label(route)).not.toBe(403);
    }
  });

  it("a CloudPRNT printer's routes refuse a request without its basic credentials, a token too (401, Basic)", async () => {
    expect(printerRoutes.map(label)).toEqual([
      'POST /cloudprnt',
      'GET /cloudprnt',
      'DELETE /cloudprnt',
    ]);
    const token = await server.token(companyId, '*');
    for (const route of printerRoutes) {
      for (const options of [{}, { token }]) {
        const body = route.method === 'POST' ? { statusCode: '200 OK' } : undefined;
        const answer = await server.request(route.method, route.path, { ...options, body });
        expect(answer.status, label(route)).toBe(401);
        expect(answer.headers.get('www-authenticate'), label(route)).toMatch(/^Basic /);
      }
    }
  });

  it('every non-public route refuses a request without a token (401)', async () => {
    for (const route of apiRoutes.filter((r) => r.access !== 'public')) {
      const answer = await server.request(route.method, concretePath(route));
      expect(answer.status, label(route)).toBe(401);
    }
  });
});

describe('tenant isolation: another company sees 404, never the record', () => {
  let ownerToken: string;
  let intruderToken: string;
  let theirs: number;
  let child: number;
  let mine: number;
  const address = {
    zipcode: '01310100',
    street: 'Rua A',
    district: 'Centro',
    city: 'Recife',
    state: 'PE',
    number: '1',
  };

  beforeAll(async () => {
    ownerToken = await server.token(await server.createCompany('Owner'), '*');
    intruderToken = await server.token(await server.createCompany('Intruder'), '*');
    const create = async (token: string, body: object) =>
      (await server.request('POST', '/customers', { token, body })).body.data.id as number;
    theirs = await create(ownerToken, {
      name: 'Segredo Ltda',
      type: 'J',
      code: 'SECRET',
      taxvat: '98765432000110',
      addresses: [address],
    });
    child = await create(ownerToken, { name: 'Filha Ltda', type: 'J', code: 'CHILD' });
    await server.request('POST', `/customers/${theirs}/relationships`, {
      token: ownerToken,
      body: { related_customer_id: child, direction: 'child' },
    });
    mine = await create(intruderToken, { name: 'Minha Loja', type: 'F', code: 'MINE' });
  });

  const attempts: [string, string, () => string, () => object | undefined][] = [
    ['GET', 'by id', () => `/customers/${theirs}`, () => undefined],
    ['GET', 'by code', () => '/customers/by-code/SECRET', () => undefined],
    ['GET', 'by document', () => '/customers/by-document/98765432000110', () => undefined],
    ['PUT', 'replace', () => `/customers/${theirs}`, () => ({ name: 'Hacked', type: 'F' })],
    ['PATCH', 'patch', () => `/customers/${theirs}`, () => ({ name: 'Hacked' })],
    ['GET', 'relationships', () => `/customers/${theirs}/relationships`, () => undefined],
    [
      'POST',
      'link to it',
      () => `/customers/${theirs}/relationships`,
      () => ({ related_customer_id: mine, direction: 'child' }),
    ],
    [
      'DELETE',
      'unlink',
      () => `/customers/${theirs}/relationships/child/${child}`,
      () => undefined,
    ],
  ];

  it.each(attempts)('%s %s is a 404', async (method, _what, path, body) => {
    const answer = await server.request(method, path(), { token: intruderToken, body: body() });
    expect(answer.status).toBe(404);
    expect(answer.body.success).toBe(false);
    expect(JSON.stringify(answer.body)).not.toContain('Segredo');
  });

  it('linking its own customer to the other company is refused without telling', async () => {
    const answer = await server.request('POST', `/customers/${mine}/relationships`, {
      token: intruderToken,
      body: { related_customer_id: theirs, direction: 'parent' },
    });
    expect(answer.status).toBe(422);
    // The same answer as for an id that does not exist anywhere.
    const unknown = await server.request('POST', `/customers/${mine}/relationships`, {
      token: intruderToken,
      body: { related_customer_id: 999_999, direction: 'parent' },
    });
    expect(answer.body).toEqual(unknown.body);
  });

  it('lists and searches show only its own customers', async () => {
    for (const query of ['', '?search=Segredo', '?code=SECRET', '?taxvat=98765432000110']) {
      const answer = await server.request('GET', `/customers${query}`, { token: intruderToken });
      expect(answer.status).toBe(200);
      expect(answer.body.data.map((c: { id: number }) => c.id)).not.toContain(theirs);
    }
  });

  it('after all the attempts, the record and its link are untouched', async () => {
    const answer = await server.request('GET', `/customers/${theirs}`, { token: ownerToken });
    expect(answer.body.data.name).toBe('Segredo Ltda');
    const links = await server.request('GET', `/customers/${theirs}/relationships`, {
      token: ownerToken,
    });
    expect(
      links.body.data.map((r: { related_customer_id: number }) => r.related_customer_id),
    ).toEqual([child]);
  });
});
