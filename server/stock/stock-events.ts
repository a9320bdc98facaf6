import { fromMilli } from '../../shared/quantity.ts';
import type { Db } from '../storage/db.ts';
import type { NewEvent, WebhookOutbox } from '../webhooks/index.ts';
import { readBalances } from './read-balances.ts';
import type { StockProducts } from './stock-products.ts';

/** A balance an update changed: its slot, what it holds now and held before, in milli. */
export interface ChangedBalance {
  productId: number;
  warehouseId: number;
  locationId: number;
  lotId: number;
  milli: number;
  beforeMilli: number;
}

/**
 * A `stock.changed` event per balance whose quantity changed, in the update's transaction:
 * its data is the balance as the product's stock shows it (warehouse, location, lot,
 * quantity, updated_at), with the product's id and code and the quantity before. Read
 * only when some endpoint of the company takes the type.
 */
export async function recordStockChanges(
  { outbox, stockProducts }: { outbox: WebhookOutbox; stockProducts: StockProducts },
  db: Db,
  companyId: number,
  at: string,
  changed: readonly ChangedBalance[],
): Promise<void> {
  if (changed.length === 0) return;
  if (!(await outbox.wants(db, companyId, 'stock.changed'))) return;
  const productIds = [...new Set(changed.map((c) => c.productId))];
  const balances = await readBalances(db, companyId, productIds);
  const codes = new Map(
    (await stockProducts.find(db, companyId, { ids: productIds })).map((row) => [row.id, row.code]),
  );
  const events: NewEvent[] = changed.map((change) => {
    const balance = balances
      .get(change.productId)
      ?.find(
        (b) =>
          b.warehouse_id === change.warehouseId &&
          (b.location_id ?? 0) === change.locationId &&
          (b.lot_id ?? 0) === change.lotId,
      );
    return {
      companyId,
      type: 'stock.changed',
      at,
      data: () => ({
        product_id: change.productId,
        product_code: codes.get(change.productId) ?? null,
        ...balance,
        previous_quantity: fromMilli(change.beforeMilli),
      }),
    };
  });
  await outbox.recordAll(db, events);
}
