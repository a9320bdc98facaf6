import type { Transaction } from 'kysely';
import type { StockUpdateInput } from '../../shared/stock.ts';
import type { Database } from '../storage/schema.ts';
import { listWarehouses } from './list-warehouses.ts';
import type { StockProducts } from './stock-products.ts';

/**
 * Which records each stock change names (product, warehouse, location, lot), by id or by
 * code, each list in one query; a change that names none of the company's is refused on
 * its field. Results are by change index, undefined where refused or not given.
 */

/** One stock update: the product (by id or code) and the stock payload of docs/reference.md. */
export interface StockChange extends StockUpdateInput {
  product_id?: number | undefined;
  product_code?: string | undefined;
}

/** How a resolver refuses the field of a change (`keyOf` names it). */
export interface Refusal {
  /** The value names no record of the company (or not of the change's warehouse/product). */
  unknown(index: number, field: string): void;
  refuse(index: number, field: string, message: string): void;
}
type Trx = Transaction<Database>;

export async function resolveProducts(
  products: StockProducts,
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const ids = [...new Set(changes.flatMap((c) => (c.product_id ? [c.product_id] : [])))];
  const codes = [...new Set(changes.flatMap((c) => (c.product_code ? [c.product_code] : [])))];
  // PostgreSQL: the stock of a product changes one transaction at a time, so each movement's
  // "before" is what the previous one left, even for a balance that does not exist yet (no
  // row to lock). Also, a product deleted meanwhile is either gone before (422) or deleted
  // after, never a foreign-key fault. In id order, like every writer locking several products.
  const rows = await products.find(trx, companyId, { ids, codes }, 'no key update');
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

export async function resolveWarehouses(
  trx: Trx,
  companyId: number,
  changes: StockChange[],
  refusal: Refusal,
): Promise<(number | undefined)[]> {
  const warehouses = await listWarehouses(trx, companyId, {
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
export async function resolveLocationIds(
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
export async function resolveLotIds(
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
