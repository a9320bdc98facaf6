/**
 * What creating and updating a customer share: the columns an input sets, the code's
 * uniqueness, and the rows of its addresses.
 */
import { type AddressInput, type CustomerPatch, customerRoles } from '../../shared/customers.ts';
import { toCents } from '../../shared/money.ts';
import { invalidField } from '../domain-errors.ts';
import { onUniqueViolation } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { type CustomerRow, roleColumns } from './records.ts';

export const codeTaken = () => invalidField('code', 'The code has already been taken.');

/** The unique index settles races that `assertCodeFree` cannot see (concurrent writers). */
export const codeRaceAsTaken = onUniqueViolation('customers', ['company_id', 'code'], codeTaken);

// Compiled once (prepared): every create, and every update of the addresses, runs these.
const customerIdsWithCode = prepared((db, p: { companyId: number; code: string }) =>
  db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', p.companyId)
    .where('code', '=', p.code),
);
export const insertCustomer = prepared((db, row: Omit<CustomerRow, 'id'>) =>
  db
    .insertInto('customers')
    .values({
      company_id: row.company_id,
      code: row.code,
      name: row.name,
      type: row.type,
      status: row.status,
      taxvat: row.taxvat,
      telephone: row.telephone,
      mobile: row.mobile,
      email: row.email,
      credit_limit_cents: row.credit_limit_cents,
      is_customer: row.is_customer,
      is_supplier: row.is_supplier,
      created_at: row.created_at,
      updated_at: row.updated_at,
    })
    .returning('id'),
);
const deleteAddressesOf = prepared((db, p: { customerId: number }) =>
  db.deleteFrom('customer_addresses').where('customer_id', '=', p.customerId),
);

/** The optional fields of a customer, empty: what a new one starts with and a replace leaves. */
export const emptyOptionalColumns = {
  code: null,
  taxvat: null,
  telephone: null,
  mobile: null,
  email: null,
  credit_limit_cents: null,
} as const;

export function columnsOf(input: CustomerPatch) {
  const columns: Partial<Omit<CustomerRow, 'id' | 'company_id' | 'created_at'>> = {};
  if (input.name !== undefined) columns.name = input.name;
  if (input.type !== undefined) columns.type = input.type;
  if (input.code !== undefined) columns.code = input.code;
  if (input.taxvat !== undefined) columns.taxvat = input.taxvat || null;
  if (input.telephone !== undefined) columns.telephone = input.telephone;
  if (input.mobile !== undefined) columns.mobile = input.mobile;
  if (input.email !== undefined) columns.email = input.email;
  if (input.status !== undefined) columns.status = input.status;
  if (input.credit_limit !== undefined) {
    columns.credit_limit_cents = input.credit_limit === null ? null : toCents(input.credit_limit);
  }
  if (input.roles !== undefined) {
    for (const role of customerRoles)
      columns[roleColumns[role]] = input.roles.includes(role) ? 1 : 0;
  }
  return columns;
}

export async function assertCodeFree(db: Db, companyId: number, code: string, exceptId?: number) {
  const holders = await customerIdsWithCode(db, { companyId, code });
  if (holders.some((holder) => holder.id !== exceptId)) throw codeTaken();
}

/**
 * One multi-row insert per list length (up to 50 addresses), each compiled once: the
 * shape of an insert depends on its row count, never on its values. Slots are typed
 * `never` so that each fits its column; insertAddresses gives the values.
 */
type AddressSlots = Record<string, never>;
const addressInserts = new Map<number, (db: Db, values: AddressSlots) => unknown>();

function insertAddressRows(count: number) {
  let insert = addressInserts.get(count);
  if (!insert) {
    insert = prepared((db, p: AddressSlots) =>
      db.insertInto('customer_addresses').values(
        Array.from({ length: count }, (_, position) => ({
          customer_id: p.customer_id!,
          position,
          zipcode: p[`zipcode${position}`]!,
          street: p[`street${position}`]!,
          district: p[`district${position}`]!,
          city: p[`city${position}`]!,
          state: p[`state${position}`]!,
          number: p[`number${position}`]!,
          complement: p[`complement${position}`]!,
        })),
      ),
    );
    addressInserts.set(count, insert);
  }
  return insert;
}

/** A new customer's addresses: it has none yet, so nothing is deleted first. */
export async function insertAddresses(db: Db, customerId: number, addresses: AddressInput[]) {
  if (addresses.length === 0) return;
  const values: Record<string, unknown> = { customer_id: customerId };
  addresses.forEach((address, position) => {
    values[`zipcode${position}`] = address.zipcode;
    values[`street${position}`] = address.street;
    values[`district${position}`] = address.district;
    values[`city${position}`] = address.city;
    values[`state${position}`] = address.state;
    values[`number${position}`] = address.number;
    values[`complement${position}`] = address.complement ?? null;
  });
  await insertAddressRows(addresses.length)(db, values as AddressSlots);
}

/** An update's addresses: the list sent replaces the whole list. */
export async function replaceAddresses(db: Db, customerId: number, addresses: AddressInput[]) {
  await deleteAddressesOf(db, { customerId });
  await insertAddresses(db, customerId, addresses);
}
