import { hash } from 'node:crypto';
import { CompiledQuery } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { nameStatement } from '../../../storage/pg-named-statements.ts';
import type { StoreContext } from '../common/store-context.ts';
import { historyFrom } from '../common/trail.ts';
import { jobsChannel, noticePrefix } from '../queue-notices.ts';
import type { JobRow, NewJob } from '../queue-store.ts';

/**
 * PostgreSQL's create in one statement (on its own, autocommit: one round trip instead of
 * BEGIN, the document, the job, its event, NOTIFY and COMMIT). The same rows as SQLite's
 * create (../sqlite/create-job.ts):
 * - the document, stored once per company and content: the insert returns a new one's id;
 *   content stored before is read in the same statement (the two branches of `document`
 *   never both hold a row);
 * - the job, queued, made from that document;
 * - its `queued` event;
 * - the NOTIFY that wakes the waiters of every instance, sent when the statement commits;
 *   none (`$13` null) when an agent waiting in this process takes the job (`WaitersHere`).
 * No row comes back only when the content was stored by a transaction that committed while
 * this statement ran: its insert then does nothing and its snapshot cannot see the row. The
 * caller then sends it again.
 */
const createJobText = `with "new_document" as (
  insert into "print_documents" ("company_id", "sha256", "size", "content", "created_at")
  values ($1::integer, $2::text, $3::integer, $4::bytea, $5::text)
  on conflict ("company_id", "sha256") do nothing
  returning "id"
), "document" as (
  select "id" from "new_document"
  union all
  select "id" from "print_documents" where "company_id" = $1::integer and "sha256" = $2::text
), "job" as (
  insert into "print_jobs" ("company_id", "document_id", "route", "title", "status",
    "content_type", "size", "sha256", "copies", "priority", "options", "attempts",
    "created_at", "updated_at", "expires_at")
  select $1::integer, "id", $6::text, $7::text, 'queued', $8::text, $3::integer, $2::text,
    $9::integer, $10::integer, $11::text, 0, $5::text, $5::text, $12::text
  from "document"
  limit 1
  returning *
), "event" as (
  ${historyFrom('job', { from: 'null', to: `'queued'`, agent: 'null', message: 'null', at: '"created_at"' })}
)
select "job".*,
  case when $13::text is not null then pg_notify('${jobsChannel}', $13::text || "job"."id") end
    as "notified"
from "job"`;
nameStatement(createJobText);

/**
 * Runs `createJobText`: the queued job, or undefined (see above: the caller's path then).
 * `notice`: whether the statement NOTIFYs every instance.
 */
async function createInOneStatement(
  db: Db,
  p: NewJob,
  notice: boolean,
): Promise<JobRow | undefined> {
  const { rows } = await db.executeQuery<JobRow & { notified: unknown }>(
    CompiledQuery.raw(createJobText, [
      p.companyId,
      hash('sha256', p.content, 'hex'),
      p.content.length,
      p.content,
      p.createdAt,
      p.route,
      p.title,
      p.contentType,
      p.copies,
      p.priority,
      p.options,
      p.expiresAt,
      notice ? noticePrefix(p.companyId, p.route) : null,
    ]),
  );
  const row = rows[0];
  if (!row) return undefined;
  const { notified: _notified, ...job } = row;
  return job;
}

/**
 * PostgreSQL's creates: one statement each (above), through the batcher alone (never
 * gathered per turn: `newJobs`), with the outbox row when an endpoint takes
 * `print_job.created`, or in the larger unit of work `db` is (a request with an
 * `Idempotency-Key` stores its answer in its transaction, a template job its template row).
 * A statement that gave no row (content stored by a transaction that committed while it ran)
 * is sent once more: its new snapshot sees that document.
 */
export async function createRows(
  context: StoreContext,
  db: Db,
  batch: NewJob[],
): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  for (const job of batch) {
    const here = context.waitersHere;
    const keptHere = here?.takesHere(job.companyId, job.route) ? here : undefined;
    const notice = keptHere === undefined;
    const created =
      (await createInOneStatement(db, job, notice)) ??
      (await createInOneStatement(db, job, notice));
    if (!created) throw new Error('the job insert returned no row');
    if (keptHere)
      context.storage.afterCommit(db, () => keptHere.queuedHere(job.companyId, job.route));
    rows.push(created);
  }
  return rows;
}
