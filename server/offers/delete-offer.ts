import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import { getOfferRow } from './read-offers.ts';

/** Any offer but an accepted one may be deleted (an accepted offer is a commitment). */
export async function deleteOffer(storage: Storage, companyId: number, id: number) {
  await storage.transaction(async (trx) => {
    const existing = await getOfferRow(trx, companyId, id, {
      lock: storage.dialect === 'postgres',
    });
    if (existing.status === 'accepted') {
      throw new Conflict('An accepted offer cannot be deleted.');
    }
    await trx.deleteFrom('offers').where('id', '=', id).execute();
  });
}
