import type { ProductStock, StockBalanceRecord } from '../../shared/products.ts';
import { fromMilli } from '../../shared/quantity.ts';

/** A balance's row, with its warehouse's code and its location's and lot's names. */
export interface BalanceRow {
  warehouse_id: number;
  warehouse_code: string;
  location_id: number | null;
  location_code: string | null;
  lot_id: number | null;
  lot_number: string | null;
  quantity_milli: number | string;
  updated_at: string;
}

/** A balance as the API shows it. */
export const toBalanceRecord = (row: BalanceRow): StockBalanceRecord => ({
  warehouse_id: row.warehouse_id,
  warehouse_code: row.warehouse_code,
  location_id: row.location_id ?? null,
  location_code: row.location_code ?? null,
  lot_id: row.lot_id ?? null,
  lot_number: row.lot_number ?? null,
  quantity: fromMilli(Number(row.quantity_milli)),
  updated_at: row.updated_at,
});

/** The stock as a product record shows it: the total (summed in milli) and each balance. */
export function toProductStock(balances: StockBalanceRecord[]): ProductStock {
  const milli = balances.reduce((sum, b) => sum + Math.round(b.quantity * 1000), 0);
  return { quantity: fromMilli(milli), balances };
}
