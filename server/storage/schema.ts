import type { Generated } from 'kysely';

/**
 * The tables, as Kysely sees them. Each domain declares its own tables next to its
 * queries; this file joins them into one database type.
 */
export interface CoreTables {
  companies: { id: Generated<number>; name: string; created_at: string };
  tokens: {
    id: Generated<number>;
    company_id: number;
    name: string;
    /** sha256 of the secret, hex: the secret itself is never stored. */
    hash: string;
    /** JSON array of permission names. */
    permissions: string;
    created_at: string;
    expires_at: string | null;
    revoked_at: string | null;
  };
  warehouses: {
    id: Generated<number>;
    company_id: number;
    code: string;
    name: string;
    created_at: string;
  };
  categories: {
    id: Generated<number>;
    company_id: number;
    name: string;
    created_at: string;
  };
}

import type { CustomerTables } from '../customers/tables.ts';
import type { OfferTables } from '../offers/tables.ts';
import type { PrintingTables } from '../printing/tables.ts';
import type { ProductTables } from '../products/tables.ts';
import type { StockTables } from '../stock/tables.ts';

export interface Database
  extends CoreTables,
    CustomerTables,
    ProductTables,
    StockTables,
    OfferTables,
    PrintingTables {}
