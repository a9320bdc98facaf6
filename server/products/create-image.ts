import { type ImageInput, type ImageRecord, maxImagesPerProduct } from '../../shared/products.ts';
import { invalidField } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockProductRow } from './lock-product.ts';
import { touchProduct } from './product-touch.ts';
import { toImageRecord } from './records.ts';

/** Adds an image after the product's others (at most `maxImagesPerProduct`). */
export async function createImage(
  storage: Storage,
  db: Db,
  companyId: number,
  productId: number,
  input: ImageInput,
  now: Date,
): Promise<ImageRecord> {
  return storage.transaction(db, async (trx) => {
    await lockProductRow(trx, companyId, productId);
    const last = await trx
      .selectFrom('product_images')
      .select([
        (eb) => eb.fn.countAll<number>().as('count'),
        (eb) => eb.fn.max('position').as('last'),
      ])
      .where('product_id', '=', productId)
      .executeTakeFirstOrThrow();
    if (Number(last.count) >= maxImagesPerProduct) {
      throw invalidField('url', `A product holds at most ${maxImagesPerProduct} images.`);
    }
    const position = last.last === null ? 0 : Number(last.last) + 1;
    const row = await trx
      .insertInto('product_images')
      .values({ product_id: productId, position, url: input.url, alt_text: input.alt_text ?? null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await touchProduct(trx, productId, now);
    return toImageRecord(row);
  });
}
