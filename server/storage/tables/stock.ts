import type { Generated } from 'kysely';

export interface StockTables {
  stock_locations: {
    id: Generated<number>;
    company_id: number;
    warehouse_id: number;
    code: string;
    created_at: string;
  };
  stock_lots: {
    id: Generated<number>;
    company_id: number;
    product_id: number;
    number: string;
    created_at: string;
  };
  stock_balances: {
    id: Generated<number>;
    company_id: number;
    product_id: number;
    warehouse_id: number;
    /** 0 when the balance has no location (see migration 005). */
    location_id: number;
    /** 0 when the balance has no lot. */
    lot_id: number;
    quantity_milli: number;
    updated_at: string;
  };
  stock_movements: {
    id: Generated<number>;
    company_id: number;
    product_id: number;
    warehouse_id: number;
    location_id: number;
    lot_id: number;
    before_milli: number;
    after_milli: number;
    observation: string | null;
    token_id: number | null;
    created_at: string;
  };
}
