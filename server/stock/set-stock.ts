import { sql, type Transaction } from 'kysely';
import { toMilli } from '../../shared/quantity.ts';
import type { StockUpdateInput } from '../../shared/stock.ts';
import { FieldErrors } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Dialect } from '../storage/db.ts';
import { isAnyOf, jsonTable } from '../storage/json-rows.ts';
import type { Database } from '../storage/schema.ts';
import { isoNow } from '../time.ts';
import { findWarehouses } from './warehouses.ts';

/** One stock update: the product (by id or code) and the stock payload of docs/reference.md. */
export interface StockChange extends StockUpdateInput {
  product_id?: number | undefined;
  product_code?: string | undefined;
}

interface Resolved {
  productId: number;
  warehouseId: number;
  locationId: number;
  lotId: number;
  milli: number;
  observation: string | null;
}

/**
 * Sets balances, all or nothing, in one transaction, with a fixed number of statements
 * whatever the number of changes (a few look-ups, then multi-row inserts): the bulk of
 * 1,000 items costs about what one does.
 *
 * Every change writes a movement (before, after, observation, token, time), even when the
 * quantity does not change: the log shows every call that set a balance. Locations by code
 * (per warehouse) and lots by number (per product) are created on first use; unknown ids
 * are 422. `keyOf(index, field)` names a field in errors (`items.3.warehouse_id` in bulk,
 * `warehouse_id` for one product).
 */
export async function setStock(
  storage: Storage,
  companyId: number,
  tokenId: number | null,
  changes: StockChange[],
  keyOf: (index: number, field: string) => string,
  now: Date,
): Promise<number[]> {
  return storage.db.transaction().execute(async (trx) => {
    const errors = new FieldErrors();
    const refusal: Refusal = {
      unknown: (index, field) => errors.unknown(keyOf(index, field)),
      refuse: (index, field, message) => errors.add(keyOf(index, field), message),
    };
    const productIds = await resolveProducts(storage, trx, companyId, changes, refusal);
    const warehouseIds = await resolveWarehouses(trx, companyId, changes, refusal);
    const locationIds = await resolveLocationIds(trx, companyId, changes, warehouseIds, refusal);
    const lotIds = await resolveLotIds(trx, companyId, changes, productIds, refusal);
    errors.throwIfAny();

    const stamp = isoNow(now);
    await createLocations(
      storage.dialect,
      trx,
      companyId,
      changes,
      warehouseIds,
      locationIds,
      stamp,
    );
    await createLots(storage.dialect, trx, companyId, changes, productIds, lotIds, stamp);

    const resolved: Resolved[] = changes.map((change, index) => ({
      productId: productIds[index]!,
      warehouseId: warehouseIds[index]!,
      locationId: locationIds[index] ?? 0,
      lotId: lotIds[index] ?? 0,
      milli: toMilli(change.quantity),
      observation: change.observation ?? null,
    }));
    const slot = (r: {
      productId: number;
      warehouseId: number;
      locationId: number;
      lotId: number;
    }) => `${r.productId}:${r.warehouseId}:${r.locationId}:${r.lotId}`;
    const distinctProducts = [...new Set(resolved.map((r) => r.productId))];
    const current = new Map<string, number>();
    let read = trx
      .selectFrom('stock_balances')
      .select(['product_id', 'warehouse_id', 'location_id', 'lot_id', 'quantity_milli'])
      .where(isAnyOf(storage.dialect, 'product_id', distinctProducts));
    // PostgreSQL: lock the balances read, so a concurrent writer cannot slip in between the
    // "before" a movement records and the write. SQLite runs one writer at a time anyway.
    if (storage.dialect === 'postgres') {
      read = read
        .orderBy('product_id')
        .orderBy('warehouse_id')
        .orderBy('location_id')
        .orderBy('lot_id')
        .forUpdate();
    }
    const rows = await read.execute();
    for (const row of rows) {
      current.set(
        slot({
          productId: row.product_id,
          warehouseId: row.warehouse_id,
          locationId: row.location_id,
          lotId: row.lot_id,
        }),
        Number(row.quantity_milli),
      );
    }

    // In order, so that two changes of one balance in a bulk chain their movements.
    const finalBalances = new Map<string, Resolved>();
    const movements = resolved.map((r) => {
      const key = slot(r);
      const before = current.get(key) ?? 0;
      current.set(key, r.milli);
      finalBalances.set(key, r);
      return [r.productId, r.warehouseId, r.locationId, r.lotId, before, r.milli, r.observation];
    });
    const balances = [...finalBalances.values()]
      .sort(bySlot)
      .map((r) => [r.productId, r.warehouseId, r.locationId, r.lotId, r.milli]);
    const slotColumns = [
      ['product_id', 'integer'],
      ['warehouse_id', 'integer'],
      ['location_id', 'integer'],
      ['lot_id', 'integer'],
    ] as const;
    const company = sql`cast(${companyId} as integer)`;
    const time = sql`cast(${stamp} as varchar(32))`;
    // `where true`: SQLite needs it to tell the upsert's ON from a join's.
    await sql`insert into stock_balances
        (company_id, product_id, warehouse_id, location_id, lot_id, quantity_milli, updated_at)
      select ${company}, j.product_id, j.warehouse_id, j.location_id, j.lot_id, j.quantity_milli, ${time}
      from ${jsonTable(storage.dialect, [...slotColumns, ['quantity_milli', 'bigint']], balances)} as j
      where true
      on conflict (product_id, warehouse_id, location_id, lot_id)
      do update set quantity_milli = excluded.quantity_milli, updated_at = excluded.updated_at`.execute(
      trx,
    );
    const token = sql`cast(${tokenId} as integer)`;
    await sql`insert into stock_movements
        (company_id, product_id, warehouse_id, location_id, lot_id, before_milli, after_milli,
         observation, token_id, created_at)
      select ${company}, j.product_id, j.warehouse_id, j.location_id, j.lot_id, j.before_milli,
        j.after_milli, j.observation, ${token}, ${time}
      from ${jsonTable(
        storage.dialect,
        [
          ...slotColumns,
          ['before_milli', 'bigint'],
          ['after_milli', 'bigint'],
          ['observation', 'text'],
        ],
        movements,
      )} as j`.execute(trx);
    return distinctProducts;
  });
}

/*
 * Lock order. Concurrent transactions that write the same rows must take their locks in
 * one order, or PostgreSQL finds a deadlock and aborts one of them (a 500): two bulks
 * naming the same products in opposite orders would each hold a row the other waits for.
 * So the balances are locked in key order, and new lots, locations and balances are
 * inserted in key order (an insert into a unique index waits on a concurrent insert of the
 * same key).
 */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function bySlot(a: Resolved, b: Resolved): number {
  return (
    a.productId - b.productId ||
    a.warehouseId - b.warehouseId ||
    a.locationId - b.locationId ||
    a.lotId - b.lotId
  );
}

/** How a resolver refuses the field of a change (`keyOf` names it). */
interface Refusal {
  /** The value names no record of the company (or not of the change's warehouse/product). */
  unknown(index: number, field: string): void;
  refuse(index: number, field: string, message: string): void;
}
type Trx = Transaction<Database>;

async function resolveProducts(
  storage: Storage,
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(changes.flatMap((c) => (c.product_id ? [c.product_id] : [])))];
  const codes = [...new Set(changes.flatMap((c) => (c.product_code ? [c.product_code] : [])))];
  let query = trx
    .selectFrom('products')
    .select(['id', 'code', 'manage_stock'])
    .where('company_id', '=', companyId)
    .where((eb) => {
      const any = [];
      if (ids.length > 0) any.push(isAnyOf(storage.dialect, 'id', ids));
      if (codes.length > 0) any.push(isAnyOf(storage.dialect, 'code', codes));
      return eb.or(any);
    });
  // PostgreSQL: the stock of a product changes one transaction at a time, so each movement's
  // "before" is what the previous one left, even for a balance that does not exist yet (no
  // row to lock). Also, a product deleted meanwhile is either gone before (422) or deleted
  // after, never a foreign-key fault. In id order, like every writer locking several products.
  if (storage.dialect === 'postgres') query = query.orderBy('id').forNoKeyUpdate();
  const rows = await query.execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  const byCode = new Map(rows.map((row) => [row.code, row]));
  return changes.map((change, index) => {
    const field = change.product_id ? 'product_id' : 'product_code';
    const row = change.product_id
      ? byId.get(change.product_id)
      : byCode.get(change.product_code ?? '');
    if (!row) {
      refusal.unknown(index, field);
      return undefined;
    }
    if (!row.manage_stock) {
      refusal.refuse(
        index,
        field,
        `The product ${row.code} does not manage stock: set its manage_stock to true first.`,
      );
      return undefined;
    }
    return row.id;
  });
}

async function resolveWarehouses(
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const warehouses = await findWarehouses(trx, companyId, {
    ids: changes.flatMap((c) => (c.warehouse_id ? [c.warehouse_id] : [])),
    codes: changes.flatMap((c) => (c.warehouse_code ? [c.warehouse_code] : [])),
  });
  const byId = new Set(warehouses.map((w) => w.id));
  const byCode = new Map(warehouses.map((w) => [w.code, w.id]));
  return changes.map((change, index) => {
    if (change.warehouse_id !== undefined) {
      if (byId.has(change.warehouse_id)) return change.warehouse_id;
      refusal.unknown(index, 'warehouse_id');
      return undefined;
    }
    const id = byCode.get(change.warehouse_code ?? '');
    if (id === undefined) refusal.unknown(index, 'warehouse_code');
    return id;
  });
}

/** `location_id` must be a location of the change's warehouse. */
async function resolveLocationIds(
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  warehouseIds: (number | undefined)[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(changes.flatMap((c) => (c.location_id ? [c.location_id] : [])))];
  const rows =
    ids.length === 0
      ? []
      : await trx
          .selectFrom('stock_locations')
          .select(['id', 'warehouse_id'])
          .where('company_id', '=', companyId)
          .where('id', 'in', ids)
          .execute();
  const warehouseOf = new Map(rows.map((row) => [row.id, row.warehouse_id]));
  return changes.map((change, index) => {
    if (change.location_id === undefined) return undefined;
    const warehouse = warehouseIds[index];
    if (warehouse !== undefined && warehouseOf.get(change.location_id) !== warehouse) {
      refusal.unknown(index, 'location_id');
    }
    return change.location_id;
  });
}

/** `lot_id` must be a lot of the change's product. */
async function resolveLotIds(
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  productIds: (number | undefined)[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(changes.flatMap((c) => (c.lot_id ? [c.lot_id] : [])))];
  const rows =
    ids.length === 0
      ? []
      : await trx
          .selectFrom('stock_lots')
          .select(['id', 'product_id'])
          .where('company_id', '=', companyId)
          .where('id', 'in', ids)
          .execute();
  const productOf = new Map(rows.map((row) => [row.id, row.product_id]));
  return changes.map((change, index) => {
    if (change.lot_id === undefined) return undefined;
    const product = productIds[index];
    if (product !== undefined && productOf.get(change.lot_id) !== product) {
      refusal.unknown(index, 'lot_id');
    }
    return change.lot_id;
  });
}

/**
 * Fills `locationIds` for changes naming a location by code, creating missing ones. The
 * upsert returns the row a concurrent request created in the meantime instead of failing.
 */
async function createLocations(
  dialect: Dialect,
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  warehouseIds: (number | undefined)[],
  locationIds: (number | undefined)[],
  stamp: string,
) {
  const wanted = new Map<string, { warehouse_id: number; code: string }>();
  changes.forEach((change, index) => {
    if (change.location_code === undefined) return;
    const warehouse_id = warehouseIds[index]!;
    wanted.set(`${warehouse_id}:${change.location_code}`, {
      warehouse_id,
      code: change.location_code,
    });
  });
  if (wanted.size === 0) return;
  const known = new Map<string, number>();
  const list = [...wanted.values()];
  const rows = await trx
    .selectFrom('stock_locations')
    .select(['id', 'warehouse_id', 'code'])
    .where(isAnyOf(dialect, 'warehouse_id', [...new Set(list.map((w) => w.warehouse_id))]))
    .where(isAnyOf(dialect, 'code', [...new Set(list.map((w) => w.code))]))
    .execute();
  for (const row of rows) known.set(`${row.warehouse_id}:${row.code}`, row.id);
  const missing = [...wanted]
    .filter(([key]) => !known.has(key))
    .map(([, value]) => value)
    .sort((a, b) => a.warehouse_id - b.warehouse_id || compareText(a.code, b.code));
  if (missing.length > 0) {
    const created = await sql<{ id: number; warehouse_id: number; code: string }>`
      insert into stock_locations (company_id, warehouse_id, code, created_at)
      select cast(${companyId} as integer), j.warehouse_id, j.code, cast(${stamp} as varchar(32))
      from ${jsonTable(
        dialect,
        [
          ['warehouse_id', 'integer'],
          ['code', 'text'],
        ],
        missing.map((m) => [m.warehouse_id, m.code]),
      )} as j
      where true
      on conflict (warehouse_id, code) do update set code = excluded.code
      returning id, warehouse_id, code`.execute(trx);
    for (const row of created.rows) known.set(`${row.warehouse_id}:${row.code}`, row.id);
  }
  changes.forEach((change, index) => {
    if (change.location_code === undefined) return;
    locationIds[index] = known.get(`${warehouseIds[index]}:${change.location_code}`);
  });
}

/** Fills `lotIds` for changes naming a lot by number, creating missing ones. */
async function createLots(
  dialect: Dialect,
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  productIds: (number | undefined)[],
  lotIds: (number | undefined)[],
  stamp: string,
) {
  const wanted = new Map<string, { product_id: number; number: string }>();
  changes.forEach((change, index) => {
    if (change.lot_number === undefined) return;
    const product_id = productIds[index]!;
    wanted.set(`${product_id}:${change.lot_number}`, { product_id, number: change.lot_number });
  });
  if (wanted.size === 0) return;
  const known = new Map<string, number>();
  const list = [...wanted.values()];
  const rows = await trx
    .selectFrom('stock_lots')
    .select(['id', 'product_id', 'number'])
    .where(isAnyOf(dialect, 'product_id', [...new Set(list.map((w) => w.product_id))]))
    .where(isAnyOf(dialect, 'number', [...new Set(list.map((w) => w.number))]))
    .execute();
  for (const row of rows) known.set(`${row.product_id}:${row.number}`, row.id);
  const missing = [...wanted]
    .filter(([key]) => !known.has(key))
    .map(([, value]) => value)
    .sort((a, b) => a.product_id - b.product_id || compareText(a.number, b.number));
  if (missing.length > 0) {
    const created = await sql<{ id: number; product_id: number; number: string }>`
      insert into stock_lots (company_id, product_id, number, created_at)
      select cast(${companyId} as integer), j.product_id, j.number, cast(${stamp} as varchar(32))
      from ${jsonTable(
        dialect,
        [
          ['product_id', 'integer'],
          ['number', 'text'],
        ],
        missing.map((m) => [m.product_id, m.number]),
      )} as j
      where true
      on conflict (product_id, number) do update set number = excluded.number
      returning id, product_id, number`.execute(trx);
    for (const row of created.rows) known.set(`${row.product_id}:${row.number}`, row.id);
  }
  changes.forEach((change, index) => {
    if (change.lot_number === undefined) return;
    lotIds[index] = known.get(`${productIds[index]}:${change.lot_number}`);
  });
}
