import type { SelectQueryBuilder } from 'kysely';
import type { PageQuery } from '../../shared/http.ts';

/** How many rows come before a page of a list (pages count from 1). */
export const offsetOf = (page: PageQuery) => (page.page - 1) * page.per_page;

/** How many rows a list's query finds, filters and all (its `meta.total`). */
export async function totalOf<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
): Promise<number> {
  // Kysely cannot narrow a generic builder's selection: the row is the count alone.
  const counted = (await query
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow()) as { total: number | string };
  return Number(counted.total);
}

/**
 * One page of a list: how many rows `filtered` finds in all, and the page's rows as `ordered`
 * selects and orders them from it.
 */
export async function readPage<DB, TB extends keyof DB, O, R>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  page: PageQuery,
  ordered: (filtered: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, R>,
) {
  const total = await totalOf(filtered);
  const rows = await ordered(filtered).limit(page.per_page).offset(offsetOf(page)).execute();
  return { rows, total };
}
