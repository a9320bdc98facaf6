import type { PageQuery } from '../../shared/http.ts';

/** How many rows come before a page of a list (pages count from 1). */
export const offsetOf = (page: PageQuery) => (page.page - 1) * page.per_page;
