import {
  type CustomerListQuery,
  type CustomerRecord,
  normalizeDigits,
} from '../../shared/customers.ts';
import type { Db } from '../storage/db.ts';
import { likePattern, literalPattern } from '../storage/like.ts';
import { readPage } from '../storage/pages.ts';
import { isoNow } from '../time.ts';
import { withAddresses } from './read-customer.ts';
import { roleColumns } from './records.ts';

/** The company's customers, filtered, by id, paginated. */
export async function listCustomers(
  db: Db,
  companyId: number,
  query: CustomerListQuery,
): Promise<{ rows: CustomerRecord[]; total: number }> {
  let base = db.selectFrom('customers').where('company_id', '=', companyId);
  if (query.search) {
    const pattern = literalPattern(query.search, 'anywhere');
    base = base.where((eb) =>
      eb.or(['name', 'code', 'email', 'taxvat'].map((column) => likePattern(db, column, pattern))),
    );
  }
  if (query.code !== undefined) base = base.where('code', '=', query.code);
  if (query.taxvat !== undefined) base = base.where('taxvat', '=', normalizeDigits(query.taxvat));
  if (query.type) base = base.where('type', '=', query.type);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.role) base = base.where(roleColumns[query.role], '=', 1);
  if (query.updated_since) {
    base = base.where('updated_at', '>=', isoNow(new Date(query.updated_since)));
  }
  const { rows, total } = await readPage(base, query, (list) => list.selectAll().orderBy('id'));
  return { rows: await withAddresses(db, rows), total };
}
