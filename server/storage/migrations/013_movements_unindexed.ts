import { isPostgres, type MigrationDb } from './helpers.ts';

/**
 * SQLite: no index on stock movements by product. A bulk stock update writes one movement
 * per item, each for another product, so its inserts land all over an index keyed by
 * product: with the movements of a few hundred bulks, each commit rewrote nearly every leaf
 * page of that index into the WAL (up to one page per item: 4 MB for 1,000 items), and a
 * 1,000-item bulk grew from ~15 to ~35 ms of CPU (`npm run bench`, the stock bulk). Nothing reads
 * movements by product but a product's deletion, a rare office task, which now scans the
 * movements table instead (tens of ms per million movements). PostgreSQL writes index
 * tuples, not whole pages, to its log: it keeps the index.
 */
export async function up(db: MigrationDb): Promise<void> {
  if (isPostgres(db)) return;
  await db.schema.dropIndex('stock_movements_product').execute();
}
