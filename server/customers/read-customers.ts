import type { Selectable } from 'kysely';
import {
  type CustomerListQuery,
  type CustomerRecord,
  type CustomerRole,
  customerRoles,
  normalizeDigits,
} from '../../shared/customers.ts';
import { fromCents } from '../../shared/money.ts';
import { NotFound } from '../domain-errors.ts';
import { andThen, type MaybePromise } from '../maybe-promise.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { likePattern, literalPattern } from '../storage/like.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { prepared } from '../storage/prepared.ts';
import type { CustomerTables } from '../storage/tables/customers.ts';
import { isoNow } from '../time.ts';

export type CustomerRow = Selectable<CustomerTables['customers']>;
export type AddressRow = Selectable<CustomerTables['customer_addresses']>;

/** Each role's column (migration 012). */
export const roleColumns = {
  customer: 'is_customer',
  supplier: 'is_supplier',
} as const satisfies Record<CustomerRole, keyof CustomerRow>;

/** A customer as the API answers it, from its row and its addresses in their order. */
export function toRecord(row: CustomerRow, addresses: AddressRow[]): CustomerRecord {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    status: row.status,
    roles: customerRoles.filter((role) => Number(row[roleColumns[role]]) === 1),
    taxvat: row.taxvat,
    telephone: row.telephone,
    mobile: row.mobile,
    email: row.email,
    credit_limit:
      row.credit_limit_cents === null ? null : fromCents(Number(row.credit_limit_cents)),
    addresses: addresses.map((a) => ({
      id: a.id,
      zipcode: a.zipcode,
      street: a.street,
      district: a.district,
      city: a.city,
      state: a.state,
      number: a.number,
      complement: a.complement,
    })),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

async function withAddresses(db: Db, rows: CustomerRow[]): Promise<CustomerRecord[]> {
  if (rows.length === 0) return [];
  const addresses = await db
    .selectFrom('customer_addresses')
    .selectAll()
    .where(
      'customer_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('customer_id')
    .orderBy('position')
    .execute();
  const byCustomer = Map.groupBy(addresses, (address) => address.customer_id);
  return rows.map((row) => toRecord(row, byCustomer.get(row.id) ?? []));
}

// Compiled once (prepared): every read of one customer (GET, and after each write) runs
// these.
const customerById = prepared((db, p: { companyId: number; id: number }) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id),
);
// No ORDER BY: on SQLite any ORDER BY, even one an index satisfies, makes this read about
// three times dearer (≈16 µs against ≈5 µs on better-sqlite3; `npm run bench` shows it as
// "Fastify" against "Fastify, same SQL"); a customer has at most 50 addresses, which sort
// in JS for nothing.
const addressesOf = prepared((db, p: { customerId: number }) =>
  db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', p.customerId),
);

/**
 * Synchronous on SQLite's direct path (prepared.ts), so that the read of `GET
 * /customers/{id}` answers within the turn it came in (docs/http.md).
 */
export function findCustomer(
  db: Db,
  companyId: number,
  id: number,
): MaybePromise<CustomerRecord | undefined> {
  return andThen(customerById(db, { companyId, id }), ([row]) => {
    if (!row) return undefined;
    return andThen(addressesOf(db, { customerId: row.id }), (addresses) =>
      toRecord(
        row,
        addresses.sort((a, b) => a.position - b.position),
      ),
    );
  });
}

export function getCustomer(db: Db, companyId: number, id: number): MaybePromise<CustomerRecord> {
  return andThen(findCustomer(db, companyId, id), (customer) => {
    if (!customer) throw new NotFound('Customer');
    return customer;
  });
}

/** By code (unique) or by document (the oldest customer with that tax id). */
export async function getCustomerBy(
  db: Db,
  companyId: number,
  column: 'code' | 'taxvat',
  value: string,
): Promise<CustomerRecord> {
  const row = await db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where(column, '=', value)
    .orderBy('id')
    .executeTakeFirst();
  if (!row) throw new NotFound('Customer');
  return (await withAddresses(db, [row]))[0]!;
}

export async function listCustomers(
  storage: Storage,
  companyId: number,
  query: CustomerListQuery,
): Promise<{ rows: CustomerRecord[]; total: number }> {
  let base = storage.db.selectFrom('customers').where('company_id', '=', companyId);
  if (query.search) {
    const pattern = literalPattern(query.search, 'anywhere');
    base = base.where((eb) =>
      eb.or(
        ['name', 'code', 'email', 'taxvat'].map((column) => likePattern(storage, column, pattern)),
      ),
    );
  }
  if (query.code !== undefined) base = base.where('code', '=', query.code);
  if (query.taxvat !== undefined) base = base.where('taxvat', '=', normalizeDigits(query.taxvat));
  if (query.type) base = base.where('type', '=', query.type);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.role) base = base.where(roleColumns[query.role], '=', 1);
  if (query.updated_since) {
    base = base.where('updated_at', '>=', isoNow(new Date(query.updated_since)));
  }
  const total = await totalOf(base);
  const rows = await base
    .selectAll()
    .orderBy('id')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: await withAddresses(storage.db, rows), total };
}
