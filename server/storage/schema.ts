import type { CloudPrntTables } from './tables/cloudprnt.ts';
import type { ConsoleTables } from './tables/console.ts';
import type { CoreTables } from './tables/core.ts';
import type { CustomerTables } from './tables/customers.ts';
import type { FleetTables } from './tables/fleet.ts';
import type { IdempotencyTables } from './tables/idempotency.ts';
import type { OfferTables } from './tables/offers.ts';
import type { PrintingTables } from './tables/printing.ts';
import type { ProductTables } from './tables/products.ts';
import type { StockTables } from './tables/stock.ts';
import type { TemplateTables } from './tables/templates.ts';
import type { WebhookTables } from './tables/webhooks.ts';

/**
 * The tables, as Kysely sees them. Each domain's tables are declared in `tables/`, beside
 * the migrations that create them (storage imports no domain); this joins them into one
 * database type.
 */
export interface Database
  extends CoreTables,
    CustomerTables,
    ProductTables,
    StockTables,
    OfferTables,
    PrintingTables,
    IdempotencyTables,
    WebhookTables,
    FleetTables,
    ConsoleTables,
    TemplateTables,
    CloudPrntTables {}
