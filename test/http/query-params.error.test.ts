import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi } from '../../server/http/openapi.ts';
import type { AnyRoute } from '../../server/http/route.ts';
import { allRoutes, apiRoutes } from '../../server/routes.ts';
import { consoleRequest, consoleUser, signIn } from '../helpers/console.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectError } from './error-answers.ts';
import { concretePath, label } from './route-samples.ts';

/**
 * A query parameter a route does not declare is refused, on every route of the table, with
 * the usual 422 naming it (docs/http.md, "Bodies"): `?stauts=failed` used to answer the whole
 * list as if it were filtered. The rule is the pipeline's and reads no database: SQLite only.
 */

let server: TestServer;
let token: string;
let cookie: string;

beforeAll(async () => {
  server = await startTestServer();
  const company = await server.createCompany('Query Co');
  token = await server.token(company, '*');
  cookie = await signIn(server, await consoleUser(server, company, 'owner'));
});
afterAll(() => server?.close());

/** The route's request with `query` added, as its caller sends it (a person for the console's). */
function requestWith(route: AnyRoute, query: string) {
  const path = `${concretePath(route)}?${query}`;
  const body = route.body ? {} : undefined;
  if (route.access === 'session')
    return consoleRequest(server, route.method, path, { cookie, body });
  return server.request(route.method, path, {
    ...(route.access !== 'public' && { token }),
    ...(body && { body }),
  });
}

describe('every route refuses a query parameter it does not declare', () => {
  it('every query schema is an object: its keys are the parameters', () => {
    for (const route of allRoutes) {
      if (route.query) expect(route.query, label(route)).toBeInstanceOf(z.ZodObject);
    }
  });

  it.each(allRoutes.map((route) => [label(route), route] as const))('%s', async (_label, route) => {
    const answer = await requestWith(route, 'made_up=1');
    expectError(answer, 422, 'validation_failed');
    // Beside any other error of the request (`GET /search/products` requires `q`).
    expect(answer.body.errors.made_up).toEqual(['The made up field is prohibited.']);
  });
});

describe('named in the usual validation answer, beside the declared ones', () => {
  it('a misspelt filter of the jobs list', async () => {
    const answer = await server.request('GET', '/printing/history?stauts=failed&per_page=5', {
      token,
    });
    expectError(answer, 422, 'validation_failed');
    expect(answer.body.message).toBe('The stauts field is prohibited.');
    expect(answer.body.errors).toEqual({ stauts: ['The stauts field is prohibited.'] });
  });

  it('with the errors of the declared ones, and in the list form (`key[]=`)', async () => {
    const answer = await server.request('GET', '/customers?per_page=0&sort[]=name', { token });
    expectError(answer, 422, 'validation_failed');
    expect(Object.keys(answer.body.errors).sort()).toEqual(['per_page', 'sort']);
    expect(answer.body.errors.sort).toEqual(['The sort field is prohibited.']);
  });

  it('a route that declares no query takes none (the webhook list has no paging)', async () => {
    const answer = await server.request('GET', '/webhooks?per_page=100', { token });
    expectError(answer, 422, 'validation_failed');
    expect(answer.body.errors).toEqual({ per_page: ['The per page field is prohibited.'] });
    expect((await server.request('GET', '/webhooks', { token })).status).toBe(200);
  });

  it('`__proto__` and `constructor` are parameters like any other', async () => {
    for (const name of ['__proto__', 'constructor']) {
      for (const query of [`${name}=x`, `${name}[]=x`]) {
        const answer = await server.request('GET', `/printing/history?${query}`, { token });
        expectError(answer, 422, 'validation_failed');
        expect(Object.keys(answer.body.errors), query).toEqual([name]);
      }
    }
  });

  it('the parameters a route says are not credentials are its own: CloudPRNT GET and DELETE `token`', () => {
    const declaring = allRoutes.filter((route) => route.queryNotCredentials !== undefined);
    expect(declaring.map(label).sort()).toEqual(['DELETE /cloudprnt', 'GET /cloudprnt']);
    for (const route of declaring) {
      expect(route.queryNotCredentials, label(route)).toEqual(['token']);
      expect(Object.keys((route.query as z.ZodObject).shape), label(route)).toContain('token');
    }
  });

  it('declared parameters pass as before', async () => {
    for (const path of [
      '/customers?per_page=5&search=x&page=1',
      '/printing/history?status=failed&per_page=5',
      '/products?search=x',
    ]) {
      expect((await server.request('GET', path, { token })).status, path).toBe(200);
    }
  });
});

describe('the OpenAPI document', () => {
  const document = buildOpenApi(apiRoutes, '0') as {
    paths: Record<
      string,
      Record<
        string,
        { parameters: { in: string; name: string }[]; responses: Record<string, unknown> }
      >
    >;
  };

  it('lists the 422 on every operation, and as query parameters exactly what each route declares', () => {
    for (const route of apiRoutes.filter((r) => !r.hidden)) {
      const operation = document.paths[`/api/v1${route.path}`]![route.method.toLowerCase()]!;
      expect(operation.responses['422'], label(route)).toBeDefined();
      const listed = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name);
      const declared = route.query ? Object.keys((route.query as z.ZodObject).shape) : [];
      expect(listed, label(route)).toEqual(declared);
    }
  });
});
