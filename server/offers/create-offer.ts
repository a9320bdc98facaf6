import type { OfferInput, OfferRecord } from '../../shared/offers.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { replaceLines } from './offer-lines.ts';
import { priceOffer } from './price-offer.ts';
import { readOffer } from './read-offer.ts';

/** A new draft offer, its lines priced now. */
export async function createOffer(
  storage: Storage,
  db: Db,
  companyId: number,
  input: OfferInput,
  now: Date,
): Promise<OfferRecord> {
  return storage.transaction(db, async (trx) => {
    const priced = await priceOffer(trx, companyId, input, '', true);
    const stamp = isoNow(now);
    const row = await trx
      .insertInto('offers')
      .values({
        company_id: companyId,
        customer_id: priced.customer_id,
        status: 'draft',
        notes: priced.notes,
        valid_until: priced.valid_until,
        subtotal_cents: priced.subtotal_cents,
        discount_cents: priced.discount_cents,
        total_cents: priced.total_cents,
        created_at: stamp,
        updated_at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await replaceLines(trx, row.id, priced.lines);
    return readOffer(trx, companyId, row.id);
  });
}
