import type { StockBalanceRecord } from '../../shared/products.ts';
import type { Db } from '../storage/db.ts';
import { toBalanceRecord } from './records.ts';

/**
 * The balances of some products, by product id, in a stable order (warehouse code, then
 * location, then lot). One query whatever the number of products.
 */
export async function readBalances(
  db: Db,
  companyId: number,
  productIds: number[],
): Promise<Map<number, StockBalanceRecord[]>> {
  if (productIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('stock_balances as b')
    .innerJoin('warehouses as w', 'w.id', 'b.warehouse_id')
    .leftJoin('stock_locations as l', 'l.id', 'b.location_id')
    .leftJoin('stock_lots as t', 't.id', 'b.lot_id')
    .select([
      'b.product_id',
      'b.warehouse_id',
      'w.code as warehouse_code',
      'l.id as location_id',
      'l.code as location_code',
      't.id as lot_id',
      't.number as lot_number',
      'b.quantity_milli',
      'b.updated_at',
    ])
    .where('b.company_id', '=', companyId)
    .where('b.product_id', 'in', productIds)
    .orderBy('b.product_id')
    .orderBy('w.code')
    .orderBy('b.location_id')
    .orderBy('b.lot_id')
    .execute();
  const byProduct = Map.groupBy(rows, (row) => row.product_id);
  return new Map(
    [...byProduct].map(([productId, balances]) => [productId, balances.map(toBalanceRecord)]),
  );
}

/** Total quantity (in milli, all warehouses) of each stock-managed product asked for. */
export async function readAvailableMilli(
  db: Db,
  companyId: number,
  productIds: number[],
): Promise<Map<number, number>> {
  const totals = new Map<number, number>();
  if (productIds.length === 0) return totals;
  const rows = await db
    .selectFrom('stock_balances')
    .select(['product_id', (eb) => eb.fn.sum<number>('quantity_milli').as('milli')])
    .where('company_id', '=', companyId)
    .where('product_id', 'in', productIds)
    .groupBy('product_id')
    .execute();
  for (const row of rows) totals.set(row.product_id, Number(row.milli));
  return totals;
}
