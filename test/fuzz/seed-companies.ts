import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Storage } from '../../server/storage/database.ts';
import { tenant } from '../helpers/catalog.ts';
import type { TestServer } from '../helpers/server.ts';

/**
 * The two companies of a fuzz run: the one whose token the fuzz uses, and a neighbour whose
 * rows must come out of the run exactly as they went in. Both hold one of every record, so
 * that ids and codes in the fuzzed paths and bodies name real rows (the neighbour's too).
 */
export interface FuzzCompany {
  companyId: number;
  token: string;
  agentUuid: string;
  ids: number[];
  codes: string[];
}

export async function seedCompany(server: TestServer, label: string): Promise<FuzzCompany> {
  const company = await tenant(server);
  const { token } = company;
  const call = async (method: string, path: string, body: unknown, headers = {}) => {
    const answer = await server.request(method, path, { token, body, headers });
    expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer.body?.data;
  };
  const warehouse = await company.warehouse(`${label}-W1`);
  const category = await company.category();
  const customer = await call('POST', '/customers', {
    name: `${label} Cliente`,
    type: 'F',
    code: `${label}-C1`,
    taxvat: '12345678901',
    addresses: [
      {
        zipcode: '20040020',
        street: 'Rua',
        district: 'Centro',
        city: 'Rio',
        state: 'RJ',
        number: '1',
      },
    ],
  });
  const other = await call('POST', '/customers', {
    name: `${label} Filial`,
    type: 'J',
    code: `${label}-C2`,
  });
  await call('POST', `/customers/${customer.id}/relationships`, {
    related_customer_id: other.id,
    direction: 'child',
  });
  const product = await call('POST', '/products', {
    code: `${label}-P1`,
    name: `${label} Produto`,
    price: 10,
    unit: 'UN',
    manage_stock: true,
    categories: [category],
    images: [{ url: 'https://example.com/p1.png' }],
  });
  const kit = await call('POST', '/products', {
    code: `${label}-K1`,
    name: `${label} Kit`,
    price: 30,
    unit: 'UN',
    manage_stock: false,
    type: 'ASSEMBLY',
    assembly: { components: [{ product_id: product.id, quantity: 2 }] },
  });
  await call('PUT', `/inventory/stock/products/${product.id}`, {
    quantity: 5,
    warehouse_id: warehouse,
    location_code: 'A1',
    lot_number: 'L1',
  });
  const offer = await call('POST', '/offers', {
    customer_id: customer.id,
    items: [{ product_id: product.id, quantity: 1 }],
  });
  const agentUuid = randomUUID();
  const agent = { 'x-agent-id': agentUuid };
  await call('POST', '/printing/register', {
    uuid: agentUuid,
    name: `${label} Till`,
    hostname: 'till',
    platform: 'linux',
    version: '0.1.0',
  });
  await call('PUT', '/printing/routes', { routes: [{ name: 'receipts', printer: 'P' }] }, agent);
  const job = await call('POST', '/printing/jobs', {
    route: 'receipts',
    content_type: 'text/plain',
    content_base64: Buffer.from('hello').toString('base64'),
  });
  await call('POST', '/printing/jobs', {
    route: 'receipts',
    content_type: 'text/plain',
    content_base64: Buffer.from('second').toString('base64'),
  });
  const claimed = await call('POST', '/printing/jobs/next', { wait: 0 }, agent);
  // Printed, not held: a held job's lease would run out during a long run, and the sweep
  // that fails it would change the company's rows without any request of the fuzz.
  await call('POST', `/printing/jobs/${claimed.id}/confirm`, {}, agent);
  return {
    companyId: company.companyId,
    token,
    agentUuid,
    ids: [customer.id, other.id, product.id, kit.id, offer.id, job.id, claimed.id, category],
    codes: [`${label}-C1`, `${label}-P1`, '12345678901'],
  };
}

/** Tables scoped by `company_id`, and the child tables scoped through their parent. */
const scopedTables = [
  'tokens',
  'customers',
  'customer_relationships',
  'warehouses',
  'categories',
  'products',
  'stock_locations',
  'stock_lots',
  'stock_balances',
  'stock_movements',
  'offers',
  'print_agents',
  'print_routes',
  'print_documents',
  'print_jobs',
  'print_job_events',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_deliveries',
  'print_enrollments',
  'print_enrollment_agents',
  'agent_update_checks',
];
const childTables: [table: string, column: string, parent: string][] = [
  ['customer_addresses', 'customer_id', 'customers'],
  ['product_categories', 'product_id', 'products'],
  ['product_images', 'product_id', 'products'],
  ['product_components', 'assembly_id', 'products'],
  ['offer_items', 'offer_id', 'offers'],
];

/** Every row of the company by table, in a stable order: equal snapshots, nothing changed. */
export async function companySnapshot(
  storage: Storage,
  companyId: number,
): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  const rows = async (query: ReturnType<typeof sql>) =>
    ((await query.execute(storage.db)).rows as Record<string, unknown>[])
      .map((row) =>
        JSON.stringify(row, (key, value) => {
          // Moved by time alone: the agent sweep marks a silent agent offline.
          if (key === 'online_since') return undefined;
          return Buffer.isBuffer(value) || value instanceof Uint8Array
            ? Buffer.from(value).toString('base64')
            : value;
        }),
      )
      .sort();
  for (const table of scopedTables) {
    tables[table] = await rows(
      sql`select * from ${sql.table(table)} where company_id = ${companyId}`,
    );
  }
  for (const [table, column, parent] of childTables) {
    tables[table] = await rows(
      sql`select * from ${sql.table(table)} where ${sql.ref(column)} in (select id from ${sql.table(parent)} where company_id = ${companyId})`,
    );
  }
  tables.companies = await rows(sql`select * from companies where id = ${companyId}`);
  return tables;
}
