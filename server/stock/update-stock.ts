import { sql, type Transaction } from 'kysely';
import { toMilli } from '../../shared/quantity.ts';
import type { ProductStockRecord } from '../../shared/stock.ts';
import { FieldErrors } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isAnyOf, jsonTable } from '../storage/json-rows.ts';
import { lockRows } from '../storage/locks.ts';
import type { Database } from '../storage/schema.ts';
import { isoNow } from '../time.ts';
import { createLocations, createLots } from './create-lots-and-locations.ts';
import { readBalances } from './read-balances.ts';
import { toProductStock } from './records.ts';
import {
  type Refusal,
  resolveLocationIds,
  resolveLotIds,
  resolveProducts,
  resolveWarehouses,
  type StockChange,
} from './resolve-changes.ts';
import { recordStockChanges } from './stock-events.ts';
import type { StockDeps } from './stock-products.ts';

type Trx = Transaction<Database>;

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
 * are refused on their field (`InvalidFields`). `keyOf(index, field)` names a field in errors (`items.3.warehouse_id` in bulk,
 * `warehouse_id` for one product).
 */
export async function updateStock(
  deps: StockDeps,
  db: Db,
  companyId: number,
  tokenId: number | null,
  changes: StockChange[],
  keyOf: (index: number, field: string) => string,
  now: Date,
): Promise<number[]> {
  return deps.storage.transaction(db, async (trx) => {
    const stamp = isoNow(now);
    const resolved = await resolveChanges(deps, trx, companyId, changes, keyOf, stamp);
    const distinctProducts = [...new Set(resolved.map((r) => r.productId))];
    const current = await lockBalances(trx, distinctProducts);
    // What each balance held before this update, for its stock.changed event.
    const stored = new Map(current);

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
    await writeBalances(trx, companyId, stamp, balances);
    await writeMovements(trx, companyId, tokenId, stamp, movements);
    await recordStockChanges(deps, trx, companyId, stamp, changedSlots(stored, finalBalances));
    return distinctProducts;
  });
}

/**
 * The changes with their ids: products, warehouses, locations and lots looked up (unknown
 * ones refused on their field, all at once), new locations and lots created.
 */
async function resolveChanges(
  deps: StockDeps,
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  keyOf: (index: number, field: string) => string,
  stamp: string,
): Promise<Resolved[]> {
  const errors = new FieldErrors();
  const refusal: Refusal = {
    unknown: (index, field) => errors.unknown(keyOf(index, field)),
    refuse: (index, field, message) => errors.add(keyOf(index, field), message),
  };
  const productIds = await resolveProducts(deps.stockProducts, trx, companyId, changes, refusal);
  const warehouseIds = await resolveWarehouses(trx, companyId, changes, refusal);
  const locationIds = await resolveLocationIds(trx, companyId, changes, warehouseIds, refusal);
  const lotIds = await resolveLotIds(trx, companyId, changes, productIds, refusal);
  errors.throwIfAny();

  await createLocations(trx, companyId, changes, warehouseIds, locationIds, stamp);
  await createLots(trx, companyId, changes, productIds, lotIds, stamp);
  return changes.map((change, index) => ({
    productId: productIds[index]!,
    warehouseId: warehouseIds[index]!,
    locationId: locationIds[index] ?? 0,
    lotId: lotIds[index] ?? 0,
    milli: toMilli(change.quantity),
    observation: change.observation ?? null,
  }));
}

/** A balance's key: product, warehouse, location and lot. */
function slot(r: { productId: number; warehouseId: number; locationId: number; lotId: number }) {
  return `${r.productId}:${r.warehouseId}:${r.locationId}:${r.lotId}`;
}

/** The products' stored balances by key, locked for the update. */
async function lockBalances(trx: Trx, productIds: number[]): Promise<Map<string, number>> {
  const read = trx
    .selectFrom('stock_balances')
    .select(['product_id', 'warehouse_id', 'location_id', 'lot_id', 'quantity_milli'])
    .where(isAnyOf(trx, 'product_id', productIds))
    .orderBy('product_id')
    .orderBy('warehouse_id')
    .orderBy('location_id')
    .orderBy('lot_id');
  // Locked in key order (PostgreSQL), so a concurrent writer cannot slip in between the
  // "before" a movement records and the write. SQLite runs one writer at a time anyway.
  const rows = await lockRows(trx, read, 'update').execute();
  const current = new Map<string, number>();
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
  return current;
}

const slotColumns = [
  ['product_id', 'integer'],
  ['warehouse_id', 'integer'],
  ['location_id', 'integer'],
  ['lot_id', 'integer'],
] as const;

/** Upserts the balances (slot columns, then the quantity), in one statement. */
async function writeBalances(
  trx: Trx,
  companyId: number,
  stamp: string,
  balances: unknown[][],
): Promise<void> {
  const company = sql`cast(${companyId} as integer)`;
  const time = sql`cast(${stamp} as varchar(32))`;
  // `where true`: SQLite needs it to tell the upsert's ON from a join's.
  await sql`insert into stock_balances
      (company_id, product_id, warehouse_id, location_id, lot_id, quantity_milli, updated_at)
    select ${company}, j.product_id, j.warehouse_id, j.location_id, j.lot_id, j.quantity_milli, ${time}
    from ${jsonTable(trx, [...slotColumns, ['quantity_milli', 'bigint']], balances)} as j
    where true
    on conflict (product_id, warehouse_id, location_id, lot_id)
    do update set quantity_milli = excluded.quantity_milli, updated_at = excluded.updated_at`.execute(
    trx,
  );
}

/** Inserts the movements (slot columns, before, after, observation), in one statement. */
async function writeMovements(
  trx: Trx,
  companyId: number,
  tokenId: number | null,
  stamp: string,
  movements: unknown[][],
): Promise<void> {
  const company = sql`cast(${companyId} as integer)`;
  const time = sql`cast(${stamp} as varchar(32))`;
  const token = sql`cast(${tokenId} as integer)`;
  await sql`insert into stock_movements
      (company_id, product_id, warehouse_id, location_id, lot_id, before_milli, after_milli,
       observation, token_id, created_at)
    select ${company}, j.product_id, j.warehouse_id, j.location_id, j.lot_id, j.before_milli,
      j.after_milli, j.observation, ${token}, ${time}
    from ${jsonTable(
      trx,
      [
        ...slotColumns,
        ['before_milli', 'bigint'],
        ['after_milli', 'bigint'],
        ['observation', 'text'],
      ],
      movements,
    )} as j`.execute(trx);
}

/*
 * Lock order. Concurrent transactions that write the same rows must take their locks in
 * one order, or PostgreSQL finds a deadlock and aborts one of them (a 500): two bulks
 * naming the same products in opposite orders would each hold a row the other waits for.
 * So the balances are locked in key order, and new lots, locations and balances are
 * inserted in key order (an insert into a unique index waits on a concurrent insert of the
 * same key).
 */

/**
 * The balances whose quantity the update changed, with what they held before (a balance
 * not stored yet held 0); a balance set to what it held is not a change.
 */
function changedSlots(stored: Map<string, number>, after: Map<string, Resolved>) {
  return [...after]
    .map(([key, r]) => ({ ...r, beforeMilli: stored.get(key) ?? 0 }))
    .filter((r) => r.beforeMilli !== r.milli)
    .sort(bySlot);
}

function bySlot(a: Resolved, b: Resolved): number {
  return (
    a.productId - b.productId ||
    a.warehouseId - b.warehouseId ||
    a.locationId - b.locationId ||
    a.lotId - b.lotId
  );
}

/**
 * Sets one product's stock (the product named by the path, by id or code) and answers the
 * product's stock after it. A product that does not manage stock is keyed `product`.
 */
export async function updateProductStock(
  deps: StockDeps,
  db: Db,
  caller: { companyId: number; tokenId: number },
  by: { id: number } | { code: string },
  change: StockChange,
  now: Date,
): Promise<ProductStockRecord> {
  const product = await deps.stockProducts.read(db, caller.companyId, by);
  await updateStock(
    deps,
    db,
    caller.companyId,
    caller.tokenId,
    [{ ...change, product_id: product.id, product_code: undefined }],
    (_index, field) => (field === 'product_id' || field === 'product_code' ? 'product' : field),
    now,
  );
  const balances = (await readBalances(db, caller.companyId, [product.id])).get(product.id);
  return { product_id: product.id, product_code: product.code, ...toProductStock(balances ?? []) };
}
