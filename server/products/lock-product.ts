import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { lockRows } from '../storage/locks.ts';
import type { ProductRow } from './records.ts';

/**
 * The product row, locked until `trx` ends (PostgreSQL; SQLite runs one writer at a time
 * anyway): writes to one product's lists (categories, images, components), which
 * delete and re-insert rows, then run one after another instead of colliding on a key.
 * `FOR NO KEY UPDATE`, not `FOR UPDATE`: inserting a row that references the product (a
 * balance, a link) takes a key-share lock on it, which `FOR UPDATE` would block, and two
 * such waits across transactions make a deadlock.
 */
export async function lockProductRow(
  trx: Db,
  companyId: number,
  id: number,
  /** `delete`: the strongest lock, taken first, for the delete to come (see `deleteProduct`). */
  purpose: 'change' | 'delete' = 'change',
): Promise<ProductRow> {
  const query = trx
    .selectFrom('products')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  const lock = purpose === 'delete' ? 'update' : 'no key update';
  const row = await lockRows(trx, query, lock).executeTakeFirst();
  if (!row) throw new NotFound('Product');
  return row;
}
