import { afterAll, beforeAll, expect } from 'vitest';
import { createCategory } from '../../server/products/create-category.ts';
import { createWarehouse } from '../../server/stock/create-warehouse.ts';
import { type Permission, permissions } from '../../shared/permissions.ts';
import type { ProductRecord } from '../../shared/products.ts';
import { startTestServer, type TestServer } from './server.ts';

/** A company with an all-permissions token, and ways to seed what products need. */
export interface Tenant {
  companyId: number;
  token: string;
  warehouse(code: string): Promise<number>;
  category(name?: string): Promise<number>;
  /** Creates a product (defaults filled in) and returns its record. */
  product(fields?: Record<string, unknown>): Promise<ProductRecord>;
  customer(name?: string): Promise<number>;
}

let sequence = 0;

export async function tenant(server: TestServer): Promise<Tenant> {
  const companyId = await server.createCompany();
  const token = await server.token(companyId, '*');
  const storage = server.app.services.storage;
  return {
    companyId,
    token,
    warehouse: (code) =>
      createWarehouse(storage.db, { companyId, code, name: `Warehouse ${code}` }),
    category: (name) =>
      createCategory(storage.db, { companyId, name: name ?? `Category ${++sequence}` }),
    async product(fields = {}) {
      const answer = await server.request('POST', '/products', {
        token,
        body: {
          manage_stock: true,
          code: `P-${++sequence}`,
          name: `Product ${sequence}`,
          price: 10,
          unit: 'UN',
          ...fields,
        },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.data;
    },
    async customer(name) {
      const answer = await server.request('POST', '/customers', {
        token,
        body: { name: name ?? `Customer ${++sequence}`, type: 'J' },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      return answer.body.data.id;
    },
  };
}

export interface RouteCase {
  method: string;
  path: string;
  permission: Permission;
  body?: unknown;
}

/**
 * A token holding every permission but the route's gets 403 naming it; a token holding
 * only the route's permission gets past authorization (whatever the handler then says).
 */
export async function expectPermissionMatrix(
  server: TestServer,
  companyId: number,
  route: RouteCase,
): Promise<void> {
  const without = await server.token(
    companyId,
    permissions.filter((p) => p !== route.permission),
  );
  const denied = await server.request(route.method, route.path, {
    token: without,
    body: route.body,
  });
  expect(denied.status).toBe(403);
  expect(denied.body.message).toContain(route.permission);
  const only = await server.token(companyId, [route.permission]);
  const allowed = await server.request(route.method, route.path, { token: only, body: route.body });
  expect(allowed.status, JSON.stringify(allowed.body)).not.toBe(403);
  expect(allowed.status).not.toBe(401);
}

/** A server on a fresh SQLite file with one company, `acme`, for the tests of a file. */
export interface CatalogOfFile {
  server: TestServer;
  acme: Tenant;
}

/** The file's server and company, started before its tests and closed after them. */
export function catalogOfFile(): CatalogOfFile {
  const shop = {} as CatalogOfFile;
  beforeAll(async () => {
    shop.server = await startTestServer();
    shop.acme = await tenant(shop.server);
  });
  afterAll(() => shop.server?.close());
  return shop;
}
