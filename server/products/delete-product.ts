import { Conflict } from '../domain-errors.ts';
import { deleteProductStock } from '../stock/index.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockProductRow } from './lock-product.ts';

/**
 * Deletes a product with its images, category links, lots, balances and movements. A
 * product that is a component of an assembly is refused (409): remove it from the kit
 * first. Offers keep their lines (code and name were copied).
 */
export async function deleteProduct(storage: Storage, db: Db, companyId: number, id: number) {
  await storage.transaction(db, async (trx) => {
    // Before anything else: writers that reference the product (stock, offers) hold it with a
    // key-share lock from their start, so this waits for them, or they for it, and no one
    // holds half of what the other needs.
    await lockProductRow(trx, companyId, id, 'delete');
    const usedBy = await trx
      .selectFrom('product_components as pc')
      .innerJoin('products as p', 'p.id', 'pc.assembly_id')
      .select('p.code')
      .where('pc.component_id', '=', id)
      .orderBy('p.code')
      .execute();
    if (usedBy.length > 0) {
      throw new Conflict(
        `The product is a component of ${usedBy.map((row) => row.code).join(', ')}; remove it from those assemblies first.`,
      );
    }
    await deleteProductStock(trx, id);
    await trx
      .deleteFrom('products')
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .execute();
  });
}
