import { sql } from 'kysely';
import type { ProductListQuery, ProductRecord } from '../../shared/products.ts';
import type { Db } from '../storage/db.ts';
import { likePattern, literalPattern } from '../storage/like.ts';
import { readPage } from '../storage/pages.ts';
import { toProductRecords } from './records.ts';

/**
 * The list (`search` on name and code, by id) and the search (`q`, exact code first, then
 * names that start with it, then the rest).
 */
export async function listProducts(
  db: Db,
  companyId: number,
  query: ProductListQuery & { q?: string },
): Promise<{ rows: ProductRecord[]; total: number }> {
  const term = query.q ?? query.search;
  let base = db.selectFrom('products').where('company_id', '=', companyId);
  if (term) {
    const pattern = literalPattern(term, 'anywhere');
    base = base.where((eb) =>
      eb.or([likePattern(db, 'name', pattern), likePattern(db, 'code', pattern)]),
    );
  }
  const { rows, total } = await readPage(base, query, (list) => {
    const all = list.selectAll();
    if (!query.q) return all.orderBy('id');
    const startsWith = likePattern(db, 'name', literalPattern(query.q, 'start'));
    const rank = sql`case when code = ${query.q} then 0 when ${startsWith} then 1 else 2 end`;
    return all.orderBy(rank).orderBy('id');
  });
  return { rows: await toProductRecords(db, companyId, rows), total };
}
