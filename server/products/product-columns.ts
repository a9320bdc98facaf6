import { toCents } from '../../shared/money.ts';
import type { ProductPatch } from '../../shared/products.ts';
import type { ProductRow } from './records.ts';

/** The product columns an input sets (create, replace and patch alike). */
export function columnsOf(input: ProductPatch) {
  const columns: Partial<Omit<ProductRow, 'id' | 'company_id' | 'created_at'>> = {};
  if (input.code !== undefined) columns.code = input.code;
  if (input.name !== undefined) columns.name = input.name;
  if (input.type !== undefined) columns.type = input.type;
  if (input.condition !== undefined) columns.condition = input.condition;
  if (input.unit !== undefined) columns.unit = input.unit;
  if (input.price !== undefined) columns.price_cents = toCents(input.price);
  if (input.ncm !== undefined) columns.ncm = input.ncm;
  // Numbers, not booleans: SQLite binds no booleans and PostgreSQL reads '1' as true.
  if (input.manage_stock !== undefined) columns.manage_stock = input.manage_stock ? 1 : 0;
  return columns;
}
