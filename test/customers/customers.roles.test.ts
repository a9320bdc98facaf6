import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseTarget } from '../../server/config.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest, migrationProvider } from '../../server/storage/migrate.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { freshCompany } from './fresh-company.ts';
import { expectInvalid, freshCode, valid } from './payloads.ts';

/**
 * Customers and suppliers (docs/customers.md): `roles` on the customer record, stored in
 * migration 012, on SQLite and on PostgreSQL.
 */
describe.each(['sqlite', 'postgres'] as const)('roles on %s', (dialect) => {
  let server: TestServer;
  let database: FreshDatabase | null = null;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      database = await freshDatabase();
      server = await startTestServer({ database: { kind: 'postgres', url: database.url } });
    } else {
      server = await startTestServer();
    }
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('runs on its dialect', () => {
    expect(server.app.services.storage.dialect).toBe(dialect);
  });

  it('a new contact is a customer unless its roles say otherwise', async () => {
    const co = await freshCompany(server);
    expect((await co.create({ name: 'Plain Customer' })).roles).toEqual(['customer']);
    expect((await co.create({ name: 'Only Supplier', roles: ['supplier'] })).roles).toEqual([
      'supplier',
    ]);
  });

  it('takes the roles in any order and answers them in one order', async () => {
    const co = await freshCompany(server);
    const both = await co.create({ name: 'Both Ways', roles: ['supplier', 'customer'] });
    expect(both.roles).toEqual(['customer', 'supplier']);
    expect((await co.get(`/customers/${both.id}`)).body.data.roles).toEqual([
      'customer',
      'supplier',
    ]);
  });

  it('PUT and PATCH change the roles when sent, and leave them as they were when not', async () => {
    const co = await freshCompany(server);
    const supplier = await co.create({ name: 'Acme Supplies', roles: ['supplier'] });
    const put = (body: Record<string, unknown>) =>
      server.request('PUT', `/customers/${supplier.id}`, { token: co.token, body });
    const patch = (body: Record<string, unknown>) =>
      server.request('PATCH', `/customers/${supplier.id}`, { token: co.token, body });

    // An integration that knows nothing of roles replaces the record: still a supplier.
    expect((await put({ name: 'Acme Supplies Ltd', type: 'J' })).body.data.roles).toEqual([
      'supplier',
    ]);
    expect((await patch({ email: 'buy@acme.example' })).body.data.roles).toEqual(['supplier']);
    expect((await patch({ roles: ['customer', 'supplier'] })).body.data.roles).toEqual([
      'customer',
      'supplier',
    ]);
    expect(
      (await put({ name: 'Acme Supplies Ltd', type: 'J', roles: ['customer'] })).body.data.roles,
    ).toEqual(['customer']);
  });

  it('filters the list by role: ?role=supplier, ?role=customer, and both without', async () => {
    const co = await freshCompany(server);
    const customer = await co.create({ name: 'Only Customer' });
    const supplier = await co.create({ name: 'Only Supplier', roles: ['supplier'] });
    const both = await co.create({
      name: 'Customer And Supplier',
      roles: ['supplier', 'customer'],
    });
    const ids = async (query: string) => {
      const answer = await co.get(`/customers${query}`);
      expect(answer.status).toBe(200);
      expect(answer.body.meta.total).toBe(answer.body.data.length);
      return answer.body.data.map((row: { id: number }) => row.id);
    };
    expect(await ids('?role=supplier')).toEqual([supplier.id, both.id]);
    expect(await ids('?role=customer')).toEqual([customer.id, both.id]);
    expect(await ids('')).toEqual([customer.id, supplier.id, both.id]);
    // With the other filters.
    expect(await ids('?role=supplier&search=only')).toEqual([supplier.id]);
  });

  it('refuses ?role= with a value that is no role', async () => {
    const co = await freshCompany(server);
    expectInvalid(await co.get('/customers?role=vendor'), 'role', 'The selected role is invalid.');
  });

  it('migration 012 makes every contact that existed before it a customer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shopdesk-roles-'));
    const scratch = dialect === 'postgres' ? await freshDatabase() : null;
    const target: DatabaseTarget = scratch
      ? { kind: 'postgres', url: scratch.url }
      : { kind: 'sqlite', file: join(dir, 'before-012.sqlite') };
    const storage = openStorage(target);
    try {
      const migrator = new Migrator({ db: storage.db, provider: migrationProvider });
      expect((await migrator.migrateTo('007_printing')).error).toBeUndefined();
      await sql`insert into companies (name, created_at) values ('Old Co', '2026-01-01T00:00:00Z')`.execute(
        storage.db,
      );
      await sql`insert into customers (company_id, name, type, status, created_at, updated_at)
        values (1, 'Old Customer', 'F', 'active', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`.execute(
        storage.db,
      );
      await migrateToLatest(storage);
      const rows = await storage.db
        .selectFrom('customers')
        .select(['name', 'is_customer', 'is_supplier'])
        .execute();
      expect(rows).toEqual([{ name: 'Old Customer', is_customer: 1, is_supplier: 0 }]);
    } finally {
      await storage.close();
      await scratch?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the database keeps at least one role, whoever writes to it', async () => {
    const co = await freshCompany(server);
    const contact = await co.create({ name: 'Kept Customer' });
    const db = server.app.services.storage.db;
    await expect(
      sql`update customers set is_customer = 0 where id = ${contact.id}`.execute(db),
    ).rejects.toThrow(/check/i);
    await expect(
      sql`update customers set is_supplier = 2 where id = ${contact.id}`.execute(db),
    ).rejects.toThrow(/check/i);
    expect((await co.get(`/customers/${contact.id}`)).body.data.roles).toEqual(['customer']);
  });
});

describe('roles: each rule, on POST, PUT and PATCH', () => {
  let server: TestServer;
  let co: Awaited<ReturnType<typeof freshCompany>>;
  let id: number;

  beforeAll(async () => {
    server = await startTestServer();
    co = await freshCompany(server);
    id = (await co.create({ name: 'Rule Holder' })).id;
  });
  afterAll(() => server.close());

  /** [what, roles, errors: key → message] */
  const rules: [string, unknown, Record<string, string>][] = [
    ['not an array', 'supplier', { roles: 'The roles field must be an array.' }],
    ['empty', [], { roles: 'The roles field must have at least 1 item.' }],
    ['null', null, { roles: 'The roles field is required.' }],
    ['a value that is no role', ['vendor'], { 'roles.0': 'The selected roles.0 is invalid.' }],
    ['a role in capitals', ['Supplier'], { 'roles.0': 'The selected roles.0 is invalid.' }],
    ['a number', [1], { 'roles.0': 'The selected roles.0 is invalid.' }],
    [
      'a role twice',
      ['supplier', 'customer', 'supplier'],
      {
        'roles.0': 'The roles.0 field has a duplicate value.',
        'roles.2': 'The roles.2 field has a duplicate value.',
      },
    ],
  ];

  const methods = [
    ['POST', () => '/customers', (roles: unknown) => ({ ...valid, code: freshCode(), roles })],
    ['PUT', () => `/customers/${id}`, (roles: unknown) => ({ ...valid, code: freshCode(), roles })],
    ['PATCH', () => `/customers/${id}`, (roles: unknown) => ({ roles })],
  ] as const;

  describe.each(methods)('%s', (method, path, body) => {
    it.each(rules)('refuses roles %s', async (_what, roles, errors) => {
      const answer = await server.request(method, path(), { token: co.token, body: body(roles) });
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual(
        Object.fromEntries(Object.entries(errors).map(([key, message]) => [key, [message]])),
      );
    });
  });

  it('nothing was changed by the refused writes', async () => {
    expect((await co.get(`/customers/${id}`)).body.data).toMatchObject({
      name: 'Rule Holder',
      roles: ['customer'],
    });
  });
});

describe('roles in the OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('describes roles on the record and the bodies, and role on the list', async () => {
    const document = (await server.request('GET', '/openapi.json')).body;
    const list = document.paths['/api/v1/customers'].get;
    expect(list.parameters).toContainEqual(
      expect.objectContaining({
        name: 'role',
        in: 'query',
        schema: { type: 'string', enum: ['customer', 'supplier'] },
      }),
    );
    const roles = {
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: { type: 'string', enum: ['customer', 'supplier'] },
    };
    const bodies = [
      document.paths['/api/v1/customers'].post,
      document.paths['/api/v1/customers/{customer}'].put,
      document.paths['/api/v1/customers/{customer}'].patch,
    ].map((operation) => operation.requestBody.content['application/json'].schema);
    for (const body of bodies) {
      expect(body.properties.roles).toMatchObject(roles);
      expect(body.properties.roles.description).toContain('Default on create: ["customer"]');
      expect(body.required ?? []).not.toContain('roles');
    }
    const record =
      document.paths['/api/v1/customers/{customer}'].get.responses['200'].content[
        'application/json'
      ].schema.properties.data;
    expect(record.properties.roles).toMatchObject(roles);
    expect(record.required).toContain('roles');
  });
});
