import type { CustomerRecord } from '../../shared/customers.ts';
import { NotFound } from '../domain-errors.ts';
import { andThen, type MaybePromise } from '../maybe-promise.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { type CustomerRow, toCustomerRecord } from './records.ts';

/** The customers of `rows` with their addresses, in their order. */
export async function withAddresses(db: Db, rows: CustomerRow[]): Promise<CustomerRecord[]> {
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
  return rows.map((row) => toCustomerRecord(row, byCustomer.get(row.id) ?? []));
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
      toCustomerRecord(
        row,
        addresses.sort((a, b) => a.position - b.position),
      ),
    );
  });
}

export function readCustomer(db: Db, companyId: number, id: number): MaybePromise<CustomerRecord> {
  return andThen(findCustomer(db, companyId, id), (customer) => {
    if (!customer) throw new NotFound('Customer');
    return customer;
  });
}

/** By code (unique) or by document (the oldest customer with that tax id). */
export async function readCustomerBy(
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
