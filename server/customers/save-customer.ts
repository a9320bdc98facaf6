import {
  type AddressInput,
  type CustomerInput,
  type CustomerPatch,
  type CustomerRecord,
  customerRoles,
} from '../../shared/customers.ts';
import { toCents } from '../../shared/money.ts';
import { invalidField } from '../domain-errors.ts';
import { onUniqueViolation, type Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import { type CustomerRow, getCustomer, roleColumns } from './read-customers.ts';

const codeTaken = () => invalidField('code', 'The code has already been taken.');

/** The unique index settles races that `assertCodeFree` cannot see (concurrent writers). */
const codeRaceAsTaken = onUniqueViolation('customers', ['company_id', 'code'], codeTaken);

// Compiled once (prepared): every create, and every update of the addresses, runs these.
const customerIdsWithCode = prepared((db, p: { companyId: number; code: string }) =>
  db
    .selectFrom('customers')
    .select('id')
    .where('company_id', '=', p.companyId)
    .where('code', '=', p.code),
);
const insertCustomer = prepared((db, row: Omit<CustomerRow, 'id'>) =>
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

function columnsOf(input: CustomerPatch) {
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

async function assertCodeFree(db: Db, companyId: number, code: string, exceptId?: number) {
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
async function insertAddresses(db: Db, customerId: number, addresses: AddressInput[]) {
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
async function replaceAddresses(db: Db, customerId: number, addresses: AddressInput[]) {
  await deleteAddressesOf(db, { customerId });
  await insertAddresses(db, customerId, addresses);
}

export async function createCustomer(
  storage: Storage,
  companyId: number,
  input: CustomerInput,
  now: Date,
): Promise<CustomerRecord> {
  return storage
    .transaction(async (trx) => {
      if (input.code) await assertCodeFree(trx, companyId, input.code);
      const stamp = isoNow(now);
      const [row] = await insertCustomer(trx, {
        company_id: companyId,
        code: null,
        taxvat: null,
        telephone: null,
        mobile: null,
        email: null,
        credit_limit_cents: null,
        status: 'active',
        // A new contact is a customer unless its roles say otherwise.
        is_customer: 1,
        is_supplier: 0,
        ...columnsOf(input),
        name: input.name,
        type: input.type,
        created_at: stamp,
        updated_at: stamp,
      });
      if (!row) throw new Error('the insert of a customer returned no id');
      await insertAddresses(trx, row.id, input.addresses ?? []);
      return getCustomer(trx, companyId, row.id);
    })
    .catch(codeRaceAsTaken);
}

/**
 * PUT replaces every declared field (what is left out becomes empty); PATCH changes only
 * what is sent. Either way addresses, when sent, replace the whole list.
 */
export async function updateCustomer(
  storage: Storage,
  companyId: number,
  id: number,
  input: CustomerPatch,
  mode: 'replace' | 'patch',
  now: Date,
): Promise<CustomerRecord> {
  return storage
    .transaction(async (trx) => {
      await getCustomer(trx, companyId, id);
      if (input.code) await assertCodeFree(trx, companyId, input.code, id);
      const cleared =
        mode === 'replace'
          ? {
              code: null,
              taxvat: null,
              telephone: null,
              mobile: null,
              email: null,
              credit_limit_cents: null,
            }
          : {};
      await trx
        .updateTable('customers')
        .set({ ...cleared, ...columnsOf(input), updated_at: isoNow(now) })
        .where('company_id', '=', companyId)
        .where('id', '=', id)
        .execute();
      const addresses = input.addresses ?? (mode === 'replace' ? [] : undefined);
      if (addresses) await replaceAddresses(trx, id, addresses);
      return getCustomer(trx, companyId, id);
    })
    .catch(codeRaceAsTaken);
}
