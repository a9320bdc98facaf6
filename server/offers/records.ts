import type { Selectable } from 'kysely';
import { fromCents } from '../../shared/money.ts';
import type { OfferRecord, QuoteRecord } from '../../shared/offers.ts';
import { fromMilli } from '../../shared/quantity.ts';
import type { OfferTables } from '../storage/tables/offers.ts';
import type { PricedLine, PricedOffer } from './price-offer.ts';
import { fromBasisPoints } from './pricing.ts';

export type OfferRow = Selectable<OfferTables['offers']>;
export type ItemRow = Selectable<OfferTables['offer_items']>;

/** An offer as the API shows it, with its lines in their order. */
export function toOfferRecord(row: OfferRow, items: ItemRow[]): OfferRecord {
  return {
    id: row.id,
    status: row.status,
    customer_id: row.customer_id,
    items: items.map((item) => ({ id: item.id, ...toLineRecord(item) })),
    subtotal: fromCents(Number(row.subtotal_cents)),
    discount: fromCents(Number(row.discount_cents)),
    total: fromCents(Number(row.total_cents)),
    notes: row.notes,
    valid_until: row.valid_until,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A priced line as the API shows it. */
export function toLineRecord(line: PricedLine) {
  return {
    product_id: line.product_id,
    product_code: line.product_code,
    product_name: line.product_name,
    quantity: fromMilli(Number(line.quantity_milli)),
    unit_price: fromCents(Number(line.unit_price_cents)),
    discount_percent: fromBasisPoints(line.discount_basis_points),
    total: fromCents(Number(line.total_cents)),
  };
}

/** A quote (an offer priced, not saved) as the API shows it. */
export function toQuoteRecord(priced: PricedOffer): QuoteRecord {
  return {
    customer_id: priced.customer_id,
    items: priced.lines.map(toLineRecord),
    subtotal: fromCents(priced.subtotal_cents),
    discount: fromCents(priced.discount_cents),
    total: fromCents(priced.total_cents),
    notes: priced.notes,
    valid_until: priced.valid_until,
    warnings: priced.warnings,
  };
}
