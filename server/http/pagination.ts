import type { z } from 'zod';
import type { PageQuery, pageLinks, pageMeta } from '../../shared/http.ts';
import type { Reply } from './route.ts';

export interface Page<T> {
  data: T[];
  links: z.infer<typeof pageLinks>;
  meta: z.infer<typeof pageMeta>;
}

/**
 * A Laravel-style page. The links keep the list's filters so that following `next` walks
 * the same list.
 */
export function pageReply<T>(
  rows: T[],
  total: number,
  page: PageQuery,
  baseUrl: string,
  filters: Record<string, string | number | undefined> = {},
): Reply {
  const lastPage = Math.max(1, Math.ceil(total / page.per_page));
  const from = rows.length === 0 ? null : (page.page - 1) * page.per_page + 1;
  const link = (n: number) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(filters)) {
      if (value !== undefined) search.set(key, String(value));
    }
    if (page.per_page !== 15) search.set('per_page', String(page.per_page));
    search.set('page', String(n));
    return `${baseUrl}?${search}`;
  };
  const body: Page<T> = {
    data: rows,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page.page > 1 ? link(Math.min(page.page - 1, lastPage)) : null,
      next: page.page < lastPage ? link(page.page + 1) : null,
    },
    meta: {
      current_page: page.page,
      from,
      last_page: lastPage,
      path: baseUrl,
      per_page: page.per_page,
      to: from === null ? null : from + rows.length - 1,
      total,
    },
  };
  return { status: 200, body };
}
