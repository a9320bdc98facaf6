import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockProductRow } from './lock-product.ts';
import { touchProduct } from './product-touch.ts';

/** Removes one image of the product. */
export async function deleteImage(
  storage: Storage,
  db: Db,
  companyId: number,
  productId: number,
  imageId: number,
  now: Date,
): Promise<void> {
  await storage.transaction(db, async (trx) => {
    await lockProductRow(trx, companyId, productId);
    const result = await trx
      .deleteFrom('product_images')
      .where('product_id', '=', productId)
      .where('id', '=', imageId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFound('Image');
    await touchProduct(trx, productId, now);
  });
}
