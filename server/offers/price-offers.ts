import type { OfferInput, QuoteRecord } from '../../shared/offers.ts';
import { InvalidFields } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { priceOffer } from './price-offer.ts';
import { toQuoteRecord } from './records.ts';

/** Up to 100 quotes; every invalid one is reported (`offers.N.…`) before any answer. */
export async function priceOffers(db: Db, companyId: number, inputs: OfferInput[]) {
  const errors: Record<string, string[]> = {};
  const quotes: QuoteRecord[] = [];
  for (const [index, input] of inputs.entries()) {
    try {
      quotes.push(toQuoteRecord(await priceOffer(db, companyId, input, `offers.${index}.`)));
    } catch (error) {
      if (!(error instanceof InvalidFields)) throw error;
      Object.assign(errors, error.errors);
    }
  }
  if (Object.keys(errors).length > 0) throw new InvalidFields(errors);
  return quotes;
}
