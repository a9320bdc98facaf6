import type { Db } from '../storage/db.ts';

/**
 * Deletes a product's movements, balances and lots, in `trx`: the product's delete runs
 * it before deleting the product, which these rows reference.
 */
export async function deleteProductStock(trx: Db, productId: number): Promise<void> {
  await trx.deleteFrom('stock_movements').where('product_id', '=', productId).execute();
  await trx.deleteFrom('stock_balances').where('product_id', '=', productId).execute();
  await trx.deleteFrom('stock_lots').where('product_id', '=', productId).execute();
}
