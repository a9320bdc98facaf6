import { createHash } from 'node:crypto';
import { type Selectable, sql } from 'kysely';
import type {
  ContentType,
  HistoryQuery,
  JobDetail,
  JobRecord,
  JobStatus,
  PrintOptions,
} from '../../shared/printing.ts';
import { notFound } from '../http/errors.ts';
import { offsetOf } from '../http/pagination.ts';
import type { Storage } from '../storage/database.ts';
import type { Db, Dialect } from '../storage/db.ts';
import type { PrintingTables } from '../storage/tables/printing.ts';
import { isoNow } from '../time.ts';
import { jobsChannel, noticeOf } from './notifier.ts';

export type JobRow = Selectable<PrintingTables['print_jobs']>;

export function toJobRecord(row: JobRow): JobRecord {
  return {
    id: row.id,
    route: row.route,
    title: row.title,
    status: row.status,
    content_type: row.content_type,
    size: Number(row.size),
    sha256: row.sha256,
    copies: row.copies,
    priority: row.priority,
    options: JSON.parse(row.options) as PrintOptions,
    attempts: row.attempts,
    agent_id: row.agent_id,
    printer: row.printer,
    error: row.error_message === null ? null : { message: row.error_message, code: row.error_code },
    reprint_of: row.reprint_of,
    created_at: row.created_at,
    updated_at: row.updated_at,
    claimed_at: row.claimed_at,
    printed_at: row.printed_at,
    expires_at: row.expires_at,
    lease_expires_at: row.lease_expires_at,
  };
}

export interface Transition {
  companyId: number;
  jobId: number;
  from: JobStatus | null;
  to: JobStatus;
  agentId: string | null;
  message: string | null;
  at: string;
}

/** Every change of status is written down: GET /printing/jobs/{job} shows the trail. */
export async function recordTransitions(db: Db, transitions: Transition[]): Promise<void> {
  // In chunks: a sweep may move thousands of jobs, and SQLite bounds bound parameters.
  for (let start = 0; start < transitions.length; start += 500) {
    await insertTransitions(db, transitions.slice(start, start + 500));
  }
}

async function insertTransitions(db: Db, transitions: Transition[]): Promise<void> {
  await db
    .insertInto('print_job_events')
    .values(
      transitions.map((t) => ({
        company_id: t.companyId,
        job_id: t.jobId,
        from_status: t.from,
        to_status: t.to,
        agent_id: t.agentId,
        message: t.message,
        at: t.at,
      })),
    )
    .execute();
}

export async function findJobRow(
  db: Db,
  companyId: number,
  id: number,
): Promise<JobRow | undefined> {
  return db
    .selectFrom('print_jobs')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function getJobRow(db: Db, companyId: number, id: number): Promise<JobRow> {
  const row = await findJobRow(db, companyId, id);
  if (!row) throw notFound('Print job');
  return row;
}

export async function getJobDetail(db: Db, companyId: number, id: number): Promise<JobDetail> {
  const row = await getJobRow(db, companyId, id);
  const events = await db
    .selectFrom('print_job_events')
    .select(['from_status', 'to_status', 'agent_id', 'message', 'at'])
    .where('job_id', '=', id)
    .orderBy('id')
    .execute();
  return {
    ...toJobRecord(row),
    events: events.map((e) => ({
      from: e.from_status,
      to: e.to_status,
      agent_id: e.agent_id,
      message: e.message,
      at: e.at,
    })),
  };
}

export interface NewJob {
  route: string;
  title?: string | undefined;
  content_type: ContentType;
  content: Buffer;
  copies: number;
  priority: number;
  options: PrintOptions;
  expires_in?: number | undefined;
}

/** Stores the content once per company (by sha256) and returns its row id. */
async function storeDocument(db: Db, companyId: number, content: Buffer, stamp: string) {
  const sha256 = createHash('sha256').update(content).digest('hex');
  await db
    .insertInto('print_documents')
    .values({ company_id: companyId, sha256, size: content.length, content, created_at: stamp })
    .onConflict((oc) => oc.columns(['company_id', 'sha256']).doNothing())
    .execute();
  const row = await db
    .selectFrom('print_documents')
    .select('id')
    .where('company_id', '=', companyId)
    .where('sha256', '=', sha256)
    .executeTakeFirstOrThrow();
  return { documentId: row.id, sha256, size: content.length };
}

export async function insertJob(
  db: Db,
  companyId: number,
  job: Omit<NewJob, 'content'> & {
    document: { documentId: number; sha256: string; size: number };
    reprintOf?: number;
    expiresAt?: string | null;
  },
  now: Date,
  message: string | null,
): Promise<JobRow> {
  const stamp = isoNow(now);
  const expiresAt =
    job.expiresAt !== undefined
      ? job.expiresAt
      : job.expires_in === undefined
        ? null
        : isoNow(new Date(now.getTime() + job.expires_in * 1000));
  const row = await db
    .insertInto('print_jobs')
    .values({
      company_id: companyId,
      document_id: job.document.documentId,
      route: job.route,
      title: job.title ?? null,
      status: 'queued',
      content_type: job.content_type,
      size: job.document.size,
      sha256: job.document.sha256,
      copies: job.copies,
      priority: job.priority,
      options: JSON.stringify(job.options),
      attempts: 0,
      agent_id: null,
      printer: null,
      error_message: null,
      error_code: null,
      reprint_of: job.reprintOf ?? null,
      created_at: stamp,
      updated_at: stamp,
      claimed_at: null,
      printed_at: null,
      expires_at: expiresAt,
      lease_expires_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordTransitions(db, [
    { companyId, jobId: row.id, from: null, to: 'queued', agentId: null, message, at: stamp },
  ]);
  return row;
}

/**
 * Inside the transaction that makes a job claimable: on PostgreSQL, NOTIFY every server
 * instance listening on `shopdesk_jobs`. PostgreSQL delivers it when (and only if) the
 * transaction commits, so no waiter is woken before the job can be claimed. On SQLite the
 * caller wakes the in-process notifier once the transaction has returned.
 */
export async function announceQueued(
  db: Db,
  dialect: Dialect,
  companyId: number,
  route: string,
  jobId: number,
): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`select pg_notify(${jobsChannel}, ${noticeOf(companyId, route, jobId)})`.execute(db);
}

/** A new queued job; the caller wakes the route's waiting agents once this commits. */
export async function createJob(
  storage: Storage,
  companyId: number,
  input: NewJob,
  now: Date,
): Promise<JobRecord> {
  const row = await storage.db.transaction().execute(async (trx) => {
    const document = await storeDocument(trx, companyId, input.content, isoNow(now));
    const row = await insertJob(trx, companyId, { ...input, document }, now, null);
    await announceQueued(trx, storage.dialect, companyId, row.route, row.id);
    return row;
  });
  return toJobRecord(row);
}

/** Newest first; `since` compares with the creation time. */
export async function listHistory(
  storage: Storage,
  companyId: number,
  query: HistoryQuery,
): Promise<{ rows: JobRecord[]; total: number }> {
  let base = storage.db.selectFrom('print_jobs').where('company_id', '=', companyId);
  if (query.status) base = base.where('status', '=', query.status);
  if (query.route) base = base.where('route', '=', query.route);
  if (query.agent_id) base = base.where('agent_id', '=', query.agent_id.toLowerCase());
  if (query.since) base = base.where('created_at', '>=', isoNow(new Date(query.since)));
  const counted = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  const rows = await base
    .selectAll()
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: rows.map(toJobRecord), total: Number(counted.total) };
}
