import type { Generated } from 'kysely';
import type { OfferStatus } from '../../../shared/offers.ts';

export interface OfferTables {
  offers: {
    id: Generated<number>;
    company_id: number;
    customer_id: number;
    status: OfferStatus;
    notes: string | null;
    valid_until: string | null;
    subtotal_cents: number;
    discount_cents: number;
    total_cents: number;
    created_at: string;
    updated_at: string;
  };
  offer_items: {
    id: Generated<number>;
    offer_id: number;
    position: number;
    product_id: number | null;
    product_code: string;
    product_name: string;
    quantity_milli: number;
    unit_price_cents: number;
    /** discount_percent × 100 (12.5 % is 1250). */
    discount_basis_points: number;
    total_cents: number;
  };
}
