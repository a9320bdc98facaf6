import type { AssemblyInput, ImageInput } from '../../shared/products.ts';
import { toMilli } from '../../shared/quantity.ts';
import type { Db } from '../storage/db.ts';

/**
 * The lists a product holds (categories, images, assembly components), each replaced whole:
 * deleted and inserted again in the order given. The caller holds the product's lock
 * (`lockProductRow`), so two replacements of one list run one after another.
 */
export async function replaceCategories(db: Db, productId: number, ids: number[]) {
  await db.deleteFrom('product_categories').where('product_id', '=', productId).execute();
  if (ids.length === 0) return;
  await db
    .insertInto('product_categories')
    .values(ids.map((category_id) => ({ product_id: productId, category_id })))
    .execute();
}

export async function replaceImageRows(db: Db, productId: number, images: ImageInput[]) {
  await db.deleteFrom('product_images').where('product_id', '=', productId).execute();
  if (images.length === 0) return;
  await db
    .insertInto('product_images')
    .values(
      images.map((image, position) => ({
        product_id: productId,
        position,
        url: image.url,
        alt_text: image.alt_text ?? null,
      })),
    )
    .execute();
}

export async function replaceComponents(db: Db, productId: number, assembly: AssemblyInput | null) {
  await db.deleteFrom('product_components').where('assembly_id', '=', productId).execute();
  if (!assembly) return;
  await db
    .insertInto('product_components')
    .values(
      assembly.components.map((component, position) => ({
        assembly_id: productId,
        component_id: component.product_id,
        position,
        quantity_milli: toMilli(component.quantity),
      })),
    )
    .execute();
}
