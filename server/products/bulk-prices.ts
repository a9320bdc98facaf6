import { sql } from 'kysely';
import { toCents } from '../../shared/money.ts';
import type { BulkPriceInput } from '../../shared/products.ts';
import { invalid } from '../http/errors.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

/**
 * Sets the price of up to 1,000 products in one transaction and one UPDATE (a CASE on
 * the id), all or nothing: an unknown product anywhere is a 422 keyed `items.N.product_id`
 * or `items.N.code`, and nothing changes. When two items name one product the later wins.
 * Returns how many items were applied.
 */
export async function updatePrices(
  storage: Storage,
  companyId: number,
  input: BulkPriceInput,
  now: Date,
): Promise<number> {
  const ids = [
    ...new Set(input.items.flatMap((item) => (item.product_id ? [item.product_id] : []))),
  ];
  const codes = [...new Set(input.items.flatMap((item) => (item.code ? [item.code] : [])))];
  return storage.db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('products')
      .select(['id', 'code'])
      .where('company_id', '=', companyId)
      .where((eb) => {
        const any = [];
        if (ids.length > 0) any.push(eb('id', 'in', ids));
        if (codes.length > 0) any.push(eb('code', 'in', codes));
        return eb.or(any);
      })
      .execute();
    const byId = new Set(found.map((row) => row.id));
    const byCode = new Map(found.map((row) => [row.code, row.id]));
    const errors: Record<string, string[]> = {};
    const cents = new Map<number, number>();
    input.items.forEach((item, index) => {
      const id = item.product_id ?? byCode.get(item.code ?? '');
      const key = item.product_id ? `items.${index}.product_id` : `items.${index}.code`;
      if (id === undefined || !byId.has(id)) {
        errors[key] = [`The selected ${key} is invalid.`];
        return;
      }
      cents.set(id, toCents(item.price));
    });
    if (Object.keys(errors).length > 0) throw invalid(errors);
    const cases = sql.join(
      [...cents].map(([id, price]) => sql`when ${id} then cast(${price} as bigint)`),
      sql` `,
    );
    await trx
      .updateTable('products')
      .set({
        price_cents: sql<number>`case id ${cases} end`,
        updated_at: isoNow(now),
      })
      .where('company_id', '=', companyId)
      .where('id', 'in', [...cents.keys()])
      .execute();
    return input.items.length;
  });
}
