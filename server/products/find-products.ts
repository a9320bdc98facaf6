import type { Db } from '../storage/db.ts';
import { isAnyOf } from '../storage/json-rows.ts';
import { lockRows, type RowLock } from '../storage/locks.ts';

/** A product as other folders see it: what it is, its price, whether it keeps stock. */
export interface ProductSummary {
  id: number;
  code: string;
  name: string;
  price_cents: number;
  manage_stock: boolean | number;
}

/**
 * The company's products named by id or by code (none named: none), in id order. With
 * `lock`, held until `db`'s transaction ends (PostgreSQL): writers that reference products
 * (stock, offers) hold them so that one deleted meanwhile is either gone before or deleted
 * after, never a foreign-key fault; in id order, like every writer locking several products.
 */
export async function findProducts(
  db: Db,
  companyId: number,
  { ids = [], codes = [] }: { ids?: readonly number[]; codes?: readonly string[] },
  lock?: RowLock,
): Promise<ProductSummary[]> {
  if (ids.length === 0 && codes.length === 0) return [];
  const query = db
    .selectFrom('products')
    .select(['id', 'code', 'name', 'price_cents', 'manage_stock'])
    .where('company_id', '=', companyId)
    .where((eb) => {
      const any = [];
      if (ids.length > 0) any.push(isAnyOf(db, 'id', ids));
      if (codes.length > 0) any.push(isAnyOf(db, 'code', codes));
      return eb.or(any);
    })
    .orderBy('id');
  return (lock ? lockRows(db, query, lock) : query).execute();
}
