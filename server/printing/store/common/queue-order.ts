import { type Expression, type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../../storage/schema.ts';

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

/**
 * `CAST(? AS INTEGER)` for the company and the agent: with a bare parameter SQLite's plan
 * for the pick ran about three times slower (~45 µs against ~140 µs a claim), and
 * PostgreSQL's statements were measured so.
 */
export const asInteger = (value: number) => sql<number>`cast(${value} as integer)`;

/**
 * The id of the company's best job that may be handed out at `now`: one row, which each
 * claim narrows to the routes it looks at (`.where('c.route', ...)`).
 */
export function bestQueuedJob(db: Kysely<Database>, companyId: number, now: string) {
  return db
    .selectFrom('print_jobs as c')
    .select('c.id')
    .where(claimable('c', asInteger(companyId), sql.val(now)))
    .orderBy(queueOrder('c'))
    .limit(1);
}
