import type { OfferListQuery, OfferRecord } from '../../shared/offers.ts';
import type { Db } from '../storage/db.ts';
import { readPage } from '../storage/pages.ts';
import { withItems } from './read-offer.ts';

/** The company's offers, filtered, by id, paginated. */
export async function listOffers(
  db: Db,
  companyId: number,
  query: OfferListQuery,
): Promise<{ rows: OfferRecord[]; total: number }> {
  let base = db.selectFrom('offers').where('company_id', '=', companyId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.customer_id) base = base.where('customer_id', '=', query.customer_id);
  const { rows, total } = await readPage(base, query, (list) => list.selectAll().orderBy('id'));
  return { rows: await withItems(db, rows), total };
}
