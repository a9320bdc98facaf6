import { type RawBuilder, type SqlBool, sql } from 'kysely';
import { type Db, dialectOf } from './db.ts';

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
export function likePattern(db: Db, column: string, pattern: string): RawBuilder<SqlBool> {
  const like = dialectOf(db) === 'postgres' ? 'ilike' : 'like';
  return sql<SqlBool>`${sql.ref(column)} ${sql.raw(like)} ${pattern} escape '\\'`;
}
