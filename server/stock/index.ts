/**
 * What stock offers the other folders: each product's balances, and their delete with the
 * product. Stock owns warehouses, locations, lots, balances and movements; it reaches
 * products through `StockProducts`, which products implement.
 */
export { deleteProductStock } from './delete-product-stock.ts';
export { readAvailableMilli, readBalances } from './read-balances.ts';
export { toProductStock } from './records.ts';
export type { StockDeps, StockProduct, StockProducts } from './stock-products.ts';
