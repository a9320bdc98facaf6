import type { Db } from '../storage/db.ts';
import type { PricedLine } from './price-offer.ts';

/** The offer's lines become exactly these, in this order. */
export async function replaceLines(db: Db, offerId: number, lines: PricedLine[]) {
  await db.deleteFrom('offer_items').where('offer_id', '=', offerId).execute();
  await db
    .insertInto('offer_items')
    .values(lines.map((line, position) => ({ ...line, offer_id: offerId, position })))
    .execute();
}
