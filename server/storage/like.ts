import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Storage } from './database.ts';

/**
 * Search terms are text to find, not patterns: `%`, `_` and `\` match themselves. Both
 * databases are told the escape character (`ESCAPE '\'`): PostgreSQL assumes it, SQLite has
 * none unless told, so without it a `\` would mean one thing on each.
 */
export function literalPattern(term: string, where: 'anywhere' | 'start'): string {
  const escaped = term.replace(/[\\%_]/g, '\\$&');
  return where === 'anywhere' ? `%${escaped}%` : `${escaped}%`;
}

/** `column` matches `pattern`, case-insensitively (ILIKE, or SQLite's LIKE: ASCII only). */
export function likePattern(
  storage: Storage,
  column: string,
  pattern: string,
): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(column)} ${sql.raw(storage.like)} ${pattern} escape '\\'`;
}
