import { sql } from 'kysely';
import type { ProductListQuery, ProductRecord } from '../../shared/products.ts';
import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { likePattern, literalPattern } from '../storage/like.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { type ProductRow, toRecords } from './records.ts';

export async function getProductRow(
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

export async function getProduct(
  db: Db,
  companyId: number,
  by: { id: number } | { code: string },
): Promise<ProductRecord> {
  const row = await getProductRow(db, companyId, by);
  return (await toRecords(db, companyId, [row]))[0]!;
}

/**
 * The list (`search` on name and code, by id) and the search (`q`, exact code first, then
 * names that start with it, then the rest).
 */
export async function listProducts(
  storage: Storage,
  companyId: number,
  query: ProductListQuery & { q?: string },
): Promise<{ rows: ProductRecord[]; total: number }> {
  const term = query.q ?? query.search;
  let base = storage.db.selectFrom('products').where('company_id', '=', companyId);
  if (term) {
    const pattern = literalPattern(term, 'anywhere');
    base = base.where((eb) =>
      eb.or([likePattern(storage, 'name', pattern), likePattern(storage, 'code', pattern)]),
    );
  }
  const total = await totalOf(base);
  let ordered = base.selectAll();
  if (query.q) {
    const startsWith = likePattern(storage, 'name', literalPattern(query.q, 'start'));
    ordered = ordered.orderBy(
      sql`case when code = ${query.q} then 0 when ${startsWith} then 1 else 2 end`,
    );
  }
  const rows = await ordered.orderBy('id').limit(query.per_page).offset(offsetOf(query)).execute();
  return { rows: await toRecords(storage.db, companyId, rows), total };
}
