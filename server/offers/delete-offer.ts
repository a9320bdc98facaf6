import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { readOfferRow } from './read-offer.ts';

/** Any offer but an accepted one may be deleted (an accepted offer is a commitment). */
export async function deleteOffer(storage: Storage, db: Db, companyId: number, id: number) {
  await storage.transaction(db, async (trx) => {
    const existing = await readOfferRow(trx, companyId, id, { lock: true });
    if (existing.status === 'accepted') {
      throw new Conflict('An accepted offer cannot be deleted.');
    }
    await trx.deleteFrom('offers').where('id', '=', id).execute();
  });
}
