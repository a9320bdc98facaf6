import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../server/http/openapi.ts';
import { apiRoutes } from '../../server/routes.ts';

/**
 * The operations that take `Idempotency-Key` (the list docs/http.md gives), and what the
 * OpenAPI document says of each: the header, and the 409 and 422 answers a key can get.
 */

const takesKey = [
  'POST /customers',
  'POST /customers/{customer}/relationships',
  'POST /products',
  'POST /products/{product}/images',
  'POST /products/{product}/images/replace',
  'PUT /products/categories/{category}/sync',
  'PUT /products/prices/bulk',
  'PUT /inventory/stock/products/by-code/{code}',
  'PUT /inventory/stock/products/{product}',
  'PUT /inventory/stock/bulk',
  'POST /offers',
  'POST /printing/jobs',
  'POST /printing/jobs/{job}/retry',
  'POST /printing/jobs/{job}/reprint',
  'POST /printing/jobs/{job}/cancel',
];

const label = (route: { method: string; path: string }) => `${route.method} ${route.path}`;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path.
const document = buildOpenApi(apiRoutes, 'test') as any;
const operationOf = (route: { method: string; path: string }) =>
  document.paths[`/api/v1${route.path}`][route.method.toLowerCase()];

describe('operations that take Idempotency-Key', () => {
  it('are exactly those of docs/http.md', () => {
    const flagged = apiRoutes.filter((route) => route.idempotent).map(label);
    expect(flagged.sort()).toEqual([...takesKey].sort());
  });

  it.each(takesKey)('%s documents the header and the 409 and 422 of a key', (name) => {
    const route = apiRoutes.find((candidate) => label(candidate) === name)!;
    const operation = operationOf(route);
    const header = operation.parameters.find(
      (parameter: { name: string }) => parameter.name === 'Idempotency-Key',
    );
    expect(header).toMatchObject({ in: 'header', required: false });
    expect(header.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    expect(operation.responses['400']).toBeDefined();
    const conflict = operation.responses['409'].content['application/json'];
    expect(Object.keys(conflict.examples)).toEqual(['conflict', 'idempotency_key_in_flight']);
    const invalid = operation.responses['422'].content['application/json'];
    expect(Object.keys(invalid.examples)).toEqual(['validation_failed', 'idempotency_key_reused']);
  });

  it('other operations have no such header', () => {
    for (const route of apiRoutes.filter(
      (candidate) => !candidate.idempotent && !candidate.hidden,
    )) {
      const names = operationOf(route).parameters.map((p: { name: string }) => p.name);
      expect(names, label(route)).not.toContain('Idempotency-Key');
    }
  });
});
