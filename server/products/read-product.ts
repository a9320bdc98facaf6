import type { ProductRecord } from '../../shared/products.ts';
import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { type ProductRow, toProductRecords } from './records.ts';

/** The company's product by id or code, or 404. */
export async function readProductRow(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRow> {
  let query = db.selectFrom('products').selectAll().where('company_id', '=', companyId);
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('code', '=', by.code);
  const row = await query.executeTakeFirst();
  if (!row) throw new NotFound('Product');
  return row;
}

export async function readProduct(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRecord> {
  const row = await readProductRow(db, companyId, by);
  return (await toProductRecords(db, companyId, [row]))[0]!;
}
