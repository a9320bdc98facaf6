import { type Selectable, sql } from 'kysely';
import type {
  AddressInput,
  CustomerInput,
  CustomerListQuery,
  CustomerPatch,
  CustomerRecord,
  RelationshipRecord,
} from '../../shared/customers.ts';
import { normalizeDigits } from '../../shared/customers.ts';
import { fromCents, toCents } from '../../shared/money.ts';
import { invalidField, NotFound, unknownReference } from '../domain-errors.ts';
import { onUniqueViolation, type Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf } from '../storage/pages.ts';
import { prepared } from '../storage/prepared.ts';
import type { CustomerTables } from '../storage/tables/customers.ts';
import { isoNow } from '../time.ts';

type CustomerRow = Selectable<CustomerTables['customers']>;
type AddressRow = Selectable<CustomerTables['customer_addresses']>;

const codeTaken = () => invalidField('code', 'The code has already been taken.');

/** The unique index settles races that `assertCodeFree` cannot see (concurrent writers). */
const codeRaceAsTaken = onUniqueViolation('customers', ['company_id', 'code'], codeTaken);

function toRecord(row: CustomerRow, addresses: AddressRow[]): CustomerRecord {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    status: row.status,
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

// Compiled once (prepared): every read of one customer (GET, and after each write) and
// every create run these.
const customerById = prepared((db, p: { companyId: number; id: number }) =>
  db
    .selectFrom('customers')
    .selectAll()
    .where('company_id', '=', p.companyId)
    .where('id', '=', p.id),
);
// No ORDER BY: on SQLite any ORDER BY, even one an index satisfies, makes this read about
// three times dearer (≈16 µs against ≈5 µs, better-sqlite3, measured); a customer has at
// most 50 addresses, which sort in JS for nothing.
const addressesOf = prepared((db, p: { customerId: number }) =>
  db.selectFrom('customer_addresses').selectAll().where('customer_id', '=', p.customerId),
);
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
      created_at: row.created_at,
      updated_at: row.updated_at,
    })
    .returning('id'),
);
const deleteAddressesOf = prepared((db, p: { customerId: number }) =>
  db.deleteFrom('customer_addresses').where('customer_id', '=', p.customerId),
);

export async function findCustomer(
  db: Db,
  companyId: number,
  id: number,
): Promise<CustomerRecord | undefined> {
  const [row] = await customerById(db, { companyId, id });
  if (!row) return undefined;
  const addresses = await addressesOf(db, { customerId: row.id });
  return toRecord(
    row,
    addresses.sort((a, b) => a.position - b.position),
  );
}

export async function getCustomer(db: Db, companyId: number, id: number): Promise<CustomerRecord> {
  const customer = await findCustomer(db, companyId, id);
  if (!customer) throw new NotFound('Customer');
  return customer;
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
    const pattern = `%${query.search}%`;
    const like = storage.like;
    base = base.where((eb) =>
      eb.or([
        eb('name', like, pattern),
        eb('code', like, pattern),
        eb('email', like, pattern),
        eb('taxvat', like, pattern),
      ]),
    );
  }
  if (query.code !== undefined) base = base.where('code', '=', query.code);
  if (query.taxvat !== undefined) base = base.where('taxvat', '=', normalizeDigits(query.taxvat));
  if (query.type) base = base.where('type', '=', query.type);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.updated_since) {
    base = base.where('updated_at', '>=', isoNow(new Date(query.updated_since)));
  }
  const counted = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('id')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: await withAddresses(storage.db, rows), total: Number(counted.total) };
}

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
  return columns;
}

async function assertCodeFree(db: Db, companyId: number, code: string, exceptId?: number) {
  const holders = await customerIdsWithCode(db, { companyId, code });
  if (holders.some((holder) => holder.id !== exceptId)) throw codeTaken();
}

/**
 * One multi-row insert per list length (up to 50 addresses), each compiled once: the
 * shape of an insert depends on its row count, never on its values. Slots are typed
 * `never` so that each fits its column; replaceAddresses gives the values.
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

async function replaceAddresses(db: Db, customerId: number, addresses: AddressInput[]) {
  await deleteAddressesOf(db, { customerId });
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

export async function createCustomer(
  storage: Storage,
  companyId: number,
  input: CustomerInput,
  now: Date,
): Promise<CustomerRecord> {
  return storage.db
    .transaction()
    .execute(async (trx) => {
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
        ...columnsOf(input),
        name: input.name,
        type: input.type,
        created_at: stamp,
        updated_at: stamp,
      });
      if (!row) throw new Error('the insert of a customer returned no id');
      await replaceAddresses(trx, row.id, input.addresses ?? []);
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
  return storage.db
    .transaction()
    .execute(async (trx) => {
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

// ---- relationships --------------------------------------------------------------------

export async function listRelationships(
  db: Db,
  companyId: number,
  customerId: number,
): Promise<RelationshipRecord[]> {
  await getCustomer(db, companyId, customerId);
  const rows = await db
    .selectFrom('customer_relationships as r')
    .innerJoin('customers as c', (join) =>
      join.on((eb) =>
        eb.or([
          eb.and([eb('r.parent_id', '=', customerId), eb('c.id', '=', eb.ref('r.child_id'))]),
          eb.and([eb('r.child_id', '=', customerId), eb('c.id', '=', eb.ref('r.parent_id'))]),
        ]),
      ),
    )
    .select([
      'r.id',
      'r.parent_id',
      'r.child_id',
      'r.created_at',
      'c.id as related_id',
      'c.code',
      'c.name',
    ])
    .where('r.company_id', '=', companyId)
    .orderBy('r.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    customer_id: customerId,
    related_customer_id: row.related_id,
    direction: row.parent_id === customerId ? 'child' : 'parent',
    related_customer: { id: row.related_id, code: row.code, name: row.name },
    created_at: row.created_at,
  }));
}

/** Whether `descendant` already sits below `ancestor` (so linking them upwards would loop). */
async function isDescendant(db: Db, ancestor: number, descendant: number): Promise<boolean> {
  const seen = new Set<number>([ancestor]);
  let frontier = [ancestor];
  while (frontier.length > 0) {
    const children = await db
      .selectFrom('customer_relationships')
      .select('child_id')
      .where('parent_id', 'in', frontier)
      .execute();
    frontier = [];
    for (const { child_id } of children) {
      if (child_id === descendant) return true;
      if (!seen.has(child_id)) {
        seen.add(child_id);
        frontier.push(child_id);
      }
    }
  }
  return false;
}

/** Arbitrary first key of the advisory lock that guards a company's relationship graph. */
const relationshipLock = 0x5d_0001;

/**
 * The duplicate and cycle checks read the graph, then write it: two such transactions at
 * once could each pass and together make a cycle. SQLite runs one transaction at a time on
 * its single connection; PostgreSQL takes a per-company lock until the transaction ends.
 */
async function lockRelationships(storage: Storage, trx: Db, companyId: number): Promise<void> {
  if (storage.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${relationshipLock}, ${companyId})`.execute(trx);
}

export async function addRelationship(
  storage: Storage,
  companyId: number,
  customerId: number,
  input: { related_customer_id: number; direction: 'parent' | 'child' },
  now: Date,
): Promise<RelationshipRecord> {
  return storage.db.transaction().execute(async (trx) => {
    await lockRelationships(storage, trx, companyId);
    await getCustomer(trx, companyId, customerId);
    const field = 'related_customer_id';
    if (input.related_customer_id === customerId) {
      throw invalidField(field, 'A customer cannot be related to itself.');
    }
    const related = await findCustomer(trx, companyId, input.related_customer_id);
    if (!related) throw unknownReference(field);
    const [parent, child] =
      input.direction === 'parent' ? [related.id, customerId] : [customerId, related.id];
    const existing = await trx
      .selectFrom('customer_relationships')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('parent_id', '=', parent), eb('child_id', '=', child)]),
          eb.and([eb('parent_id', '=', child), eb('child_id', '=', parent)]),
        ]),
      )
      .executeTakeFirst();
    if (existing) throw invalidField(field, 'These customers are already related.');
    if (await isDescendant(trx, child, parent)) {
      throw invalidField(field, 'This relationship would create a cycle.');
    }
    const row = await trx
      .insertInto('customer_relationships')
      .values({
        company_id: companyId,
        parent_id: parent,
        child_id: child,
        created_at: isoNow(now),
      })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    return {
      id: row.id,
      customer_id: customerId,
      related_customer_id: related.id,
      direction: input.direction,
      related_customer: { id: related.id, code: related.code, name: related.name },
      created_at: row.created_at,
    };
  });
}

export async function removeRelationship(
  storage: Storage,
  companyId: number,
  customerId: number,
  direction: 'parent' | 'child',
  relatedId: number,
): Promise<void> {
  const [parent, child] =
    direction === 'parent' ? [relatedId, customerId] : [customerId, relatedId];
  const result = await storage.db
    .deleteFrom('customer_relationships')
    .where('company_id', '=', companyId)
    .where('parent_id', '=', parent)
    .where('child_id', '=', child)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new NotFound('Relationship');
}
