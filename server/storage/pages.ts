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
