import { type Expression, type RawBuilder, sql } from 'kysely';

/**
 * "The best queued job", written once for both databases: a job of the company that may be
 * handed out now is queued and not past its expiry (not handed out even before the sweep
 * expires it), and the best of them has the highest priority, then the lowest id (the
 * oldest). Every claim builds its pick from these: SQLite's (../sqlite/claim-job.ts: each
 * route's best in SQL, the best of those few by `comesFirst`), PostgreSQL's one-agent claim
 * (../postgres/claim-job.ts) and its claims of a burst (../postgres/claim-many.ts, the
 * same fragments as text). The routes each narrows them to are its own.
 *
 * The status is a literal, so that both planners can take the partial index of queued jobs.
 */
export function claimable(
  job: string,
  company: Expression<number>,
  now: Expression<string>,
): RawBuilder<boolean> {
  const column = (name: string) => sql.ref(`${job}.${name}`);
  return sql<boolean>`${column('company_id')} = ${company} and ${column('status')} = 'queued' and (${column('expires_at')} is null or ${column('expires_at')} > ${now})`;
}

/** The queue's order: the highest priority first, then the oldest (the lowest id). */
export function queueOrder(job: string): RawBuilder<unknown> {
  return sql`${sql.ref(`${job}.priority`)} desc, ${sql.ref(`${job}.id`)}`;
}

/** `queueOrder` between two rows already read: whether `a` goes before `b`. */
export function comesFirst(
  a: { priority: number; id: number },
  b: { priority: number; id: number },
): boolean {
  return a.priority > b.priority || (a.priority === b.priority && a.id < b.id);
}
