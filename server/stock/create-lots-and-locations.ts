import { sql, type Transaction } from 'kysely';
import { isAnyOf, jsonTable } from '../storage/json-rows.ts';
import type { Database } from '../storage/schema.ts';
import type { StockChange } from './resolve-changes.ts';

type Trx = Transaction<Database>;

/** Missing ones are inserted in key order: see the lock order in set-stock.ts. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Fills `locationIds` for changes naming a location by code, creating missing ones. The
 * upsert returns the row a concurrent request created in the meantime instead of failing.
 */
export async function createLocations(
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
    .where(isAnyOf(trx, 'warehouse_id', [...new Set(list.map((w) => w.warehouse_id))]))
    .where(isAnyOf(trx, 'code', [...new Set(list.map((w) => w.code))]))
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
        trx,
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
export async function createLots(
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
    .where(isAnyOf(trx, 'product_id', [...new Set(list.map((w) => w.product_id))]))
    .where(isAnyOf(trx, 'number', [...new Set(list.map((w) => w.number))]))
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
        trx,
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
