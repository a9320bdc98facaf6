import { type ImageInput, type ImageRecord, maxImagesPerProduct } from '../../shared/products.ts';
import { invalidField, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { lockProductRow } from './lock-product.ts';
import { replaceImageRows } from './product-lists.ts';
import { imageRecordOf } from './records.ts';

export async function addImage(
  storage: Storage,
  companyId: number,
  productId: number,
  input: ImageInput,
  now: Date,
): Promise<ImageRecord> {
  return storage.transaction(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
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
    await touch(trx, productId, now);
    return imageRecordOf(row);
  });
}

export async function replaceImages(
  storage: Storage,
  companyId: number,
  productId: number,
  images: ImageInput[],
  now: Date,
): Promise<ImageRecord[]> {
  return storage.transaction(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
    await replaceImageRows(trx, productId, images);
    await touch(trx, productId, now);
    const rows = await trx
      .selectFrom('product_images')
      .selectAll()
      .where('product_id', '=', productId)
      .orderBy('position')
      .execute();
    return rows.map(imageRecordOf);
  });
}

export async function deleteImage(
  storage: Storage,
  companyId: number,
  productId: number,
  imageId: number,
  now: Date,
): Promise<void> {
  await storage.transaction(async (trx) => {
    await lockProductRow(trx, storage.dialect, companyId, productId);
    const result = await trx
      .deleteFrom('product_images')
      .where('product_id', '=', productId)
      .where('id', '=', imageId)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new NotFound('Image');
    await touch(trx, productId, now);
  });
}

async function touch(db: Db, productId: number, now: Date) {
  await db
    .updateTable('products')
    .set({ updated_at: isoNow(now) })
    .where('id', '=', productId)
    .execute();
}
