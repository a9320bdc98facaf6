import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';

/** A change of the product's lists (images) changes the product: its `updated_at` moves. */
export async function touchProduct(db: Db, productId: number, now: Date) {
  await db
    .updateTable('products')
    .set({ updated_at: isoNow(now) })
    .where('id', '=', productId)
    .execute();
}
