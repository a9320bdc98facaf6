import { sql } from 'kysely';
import { toCents } from '../../shared/money.ts';
import type { BulkPriceInput } from '../../shared/products.ts';
import { FieldErrors } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isAnyOf, jsonTable } from '../storage/json-rows.ts';
import { lockRows } from '../storage/locks.ts';
import { isoNow } from '../time.ts';

/**
 * Sets the price of up to 1,000 products in one transaction and one UPDATE, all or nothing: an unknown product anywhere is a 422 keyed `items.N.product_id`
 * or `items.N.code`, and nothing changes. When two items name one product the later wins.
 * Returns how many items were applied.
 */
export async function updatePrices(
  storage: Storage,
  db: Db,
  companyId: number,
  input: BulkPriceInput,
  now: Date,
): Promise<number> {
  const ids = [
    ...new Set(input.items.flatMap((item) => (item.product_id ? [item.product_id] : []))),
  ];
  const codes = [...new Set(input.items.flatMap((item) => (item.code ? [item.code] : [])))];
  return storage.transaction(db, async (trx) => {
    const select = trx
      .selectFrom('products')
      .select(['id', 'code'])
      .where('company_id', '=', companyId)
      .where((eb) => {
        const any = [];
        if (ids.length > 0) any.push(isAnyOf(trx, 'id', ids));
        if (codes.length > 0) any.push(isAnyOf(trx, 'code', codes));
        return eb.or(any);
      })
      .orderBy('id');
    // Locked in id order before the UPDATE (PostgreSQL), which would lock them in the
    // items' order: two bulks naming the same products in opposite orders would deadlock
    // (one aborted, a 500). SQLite runs one writer at a time.
    const found = await lockRows(trx, select, 'no key update').execute();
    const byId = new Set(found.map((row) => row.id));
    const byCode = new Map(found.map((row) => [row.code, row.id]));
    const errors = new FieldErrors();
    const cents = new Map<number, number>();
    input.items.forEach((item, index) => {
      const id = item.product_id ?? byCode.get(item.code ?? '');
      if (id === undefined || !byId.has(id)) {
        errors.unknown(item.product_id ? `items.${index}.product_id` : `items.${index}.code`);
        return;
      }
      cents.set(id, toCents(item.price));
    });
    errors.throwIfAny();
    const prices = [...cents].map(([id, price]) => [id, price]);
    // One UPDATE ... FROM over the items as a JSON table (SQLite 3.33+, PostgreSQL). The
    // unary + keeps SQLite from walking the company's index and scanning the JSON per row:
    // it must loop over the items and find each product by id.
    await sql`update products
      set price_cents = j.price_cents, updated_at = ${isoNow(now)}
      from ${jsonTable(
        trx,
        [
          ['id', 'integer'],
          ['price_cents', 'bigint'],
        ],
        prices,
      )} as j
      where products.id = j.id and +products.company_id = ${companyId}`.execute(trx);
    return input.items.length;
  });
}
