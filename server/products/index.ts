import type { StockProducts } from '../stock/index.ts';
import { findProducts } from './find-products.ts';
import { readProductRow } from './read-product.ts';

/**
 * What products offer the other folders. Products own the products, their categories,
 * images and components (and the categories themselves).
 */
export { findProducts, type ProductSummary } from './find-products.ts';

/** Products as stock needs them (server/stock/stock-products.ts), handed over by the wiring. */
export const stockProducts: StockProducts = { find: findProducts, read: readProductRow };
