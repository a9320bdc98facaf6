import { z } from 'zod';

/** Body of every error answer (docs/reference.md, HTTP conventions; codes in errors.ts). */
export const errorBody = z.object({
  success: z.literal(false),
  message: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});
export type ErrorBody = z.infer<typeof errorBody>;

export const maxPerPage = 100;
export const defaultPerPage = 15;

/**
 * An integer in a query string, written in decimal digits (a leading `-` allowed, so that
 * `-1` is told it is below the minimum): `0x10`, `1e3`, `1.0` and ` 5` are refused (422)
 * rather than read as 16, 1000, 1 and 5, as path ids are refused (one spelling, one URL).
 * An empty value stays as sent (and is "required", as Laravel has it).
 */
export function queryInteger<T extends z.ZodType<number>>(schema: T) {
  return z.preprocess((value, context) => {
    if (typeof value !== 'string') return value;
    if (/^-?[0-9]{1,16}$/.test(value)) return Number(value);
    if (value !== '') {
      context.addIssue({ code: 'custom', message: 'The :attribute field must be an integer.' });
    }
    return value;
  }, schema);
}

/** `page` and `per_page` of every list (Laravel style). */
export const pageQuery = z.object({
  page: queryInteger(z.number().int().min(1)).default(1),
  per_page: queryInteger(z.number().int().min(1).max(maxPerPage)).default(defaultPerPage),
});
export type PageQuery = z.infer<typeof pageQuery>;

export const pageLinks = z.object({
  first: z.string(),
  last: z.string(),
  prev: z.string().nullable(),
  next: z.string().nullable(),
});

export const pageMeta = z.object({
  current_page: z.number().int(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  path: z.string(),
  per_page: z.number().int(),
  to: z.number().int().nullable(),
  total: z.number().int(),
});

export type PageLinks = z.infer<typeof pageLinks>;
export type PageMeta = z.infer<typeof pageMeta>;
/** A page of a list as the API answers it: the type of `pageOf(record)`. */
export type Page<T> = { data: T[]; links: PageLinks; meta: PageMeta };

export function dataOf<T extends z.ZodType>(record: T) {
  return z.object({ data: record });
}

export function pageOf<T extends z.ZodType>(record: T) {
  return z.object({ data: z.array(record), links: pageLinks, meta: pageMeta });
}

/** A record's id as the API writes it: a positive integer (OpenAPI shows `minimum: 1`). */
export const recordId = z.number().int().min(1);

/**
 * The largest record id, on both databases: PostgreSQL's ids are `integer` (32 bits), and
 * an id past it must be the same answer there as on SQLite (404 in a path, 422 in a body or
 * query), not a database error. docs/security.md says why this bound and not bigint ids.
 */
export const maxId = 2_147_483_647;

/** An id that names a record in a body or a query: `integer >= 1`, at most `maxId`. */
export const idSchema = z.number().int().min(1).max(maxId);

/**
 * Integer path parameter (`integer >= 1`, docs/reference.md), written in decimal digits only:
 * `1e0`, `0x10` or `1.0` name no record (404) rather than aliasing customer 1 or 16.
 */
export const idParam = z.preprocess(
  (value) => (typeof value === 'string' && /^[1-9][0-9]*$/.test(value) ? Number(value) : value),
  idSchema,
);

/** ISO 8601 UTC timestamp as the API writes it: `2026-11-22T10:00:00Z`. */
export const timestamp = z.string();
