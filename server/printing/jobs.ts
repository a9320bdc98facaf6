import type { Selectable } from 'kysely';
import type {
  HistoryQuery,
  JobDetail,
  JobRecord,
  JobStatus,
  PrintOptions,
} from '../../shared/printing.ts';
import { NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf, totalOf } from '../storage/pages.ts';
import { prepared } from '../storage/prepared.ts';
import type { PrintingTables } from '../storage/tables/printing.ts';
import { isoNow } from '../time.ts';

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

/** The row of `print_job_events` that records a transition. */
export const eventRowOf = (t: Transition) => ({
  company_id: t.companyId,
  job_id: t.jobId,
  from_status: t.from,
  to_status: t.to,
  agent_id: t.agentId,
  message: t.message,
  at: t.at,
});

/**
 * One transition, compiled once: a job created, confirmed or failed writes one, and the
 * confirm runs it with `.sync` inside its synchronous transaction.
 */
export const transitionStatement = prepared<Transition, never>((db, t) =>
  db.insertInto('print_job_events').values(eventRowOf(t)),
);

/** Every change of status is written down: GET /printing/jobs/{job} shows the trail. */
export async function recordTransitions(db: Db, transitions: Transition[]): Promise<void> {
  if (transitions.length === 1) {
    await transitionStatement(db, transitions[0]!);
    return;
  }
  // In chunks: a sweep may move thousands of jobs, and SQLite bounds bound parameters.
  for (let start = 0; start < transitions.length; start += 500) {
    await db
      .insertInto('print_job_events')
      .values(transitions.slice(start, start + 500).map(eventRowOf))
      .execute();
  }
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
  if (!row) throw new NotFound('Print job');
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
  const total = await totalOf(base);
  const rows = await base
    .selectAll()
    .orderBy('id', 'desc')
    .limit(query.per_page)
    .offset(offsetOf(query))
    .execute();
  return { rows: rows.map(toJobRecord), total };
}
