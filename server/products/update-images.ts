import type { ImageInput, ImageRecord } from '../../shared/products.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockProductRow } from './lock-product.ts';
import { replaceImageRows } from './product-lists.ts';
import { touchProduct } from './product-touch.ts';
import { toImageRecord } from './records.ts';

/** The product's images become exactly these, in this order. */
export async function updateImages(
  storage: Storage,
  db: Db,
  companyId: number,
  productId: number,
  images: ImageInput[],
  now: Date,
): Promise<ImageRecord[]> {
  return storage.transaction(db, async (trx) => {
    await lockProductRow(trx, companyId, productId);
    await replaceImageRows(trx, productId, images);
    await touchProduct(trx, productId, now);
    const rows = await trx
      .selectFrom('product_images')
      .selectAll()
      .where('product_id', '=', productId)
      .orderBy('position')
      .execute();
    return rows.map(toImageRecord);
  });
}
