import { sql } from 'kysely';
import type { HistoryQuery } from '../../../../shared/printing.ts';
import type { Db } from '../../../storage/db.ts';
import { offsetOf, totalOf } from '../../../storage/pages.ts';
import { prepared } from '../../../storage/prepared.ts';
import { isoNow } from '../../../time.ts';
import type { JobRow, TrailRow } from '../queue-store.ts';

export function readJob(db: Db, companyId: number, jobId: number): Promise<JobRow | undefined> {
  return db
    .selectFrom('print_jobs')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', jobId)
    .executeTakeFirst();
}

export function readTrail(db: Db, jobId: number): Promise<TrailRow[]> {
  return db
    .selectFrom('print_job_events')
    .select(['from_status', 'to_status', 'agent_id', 'message', 'at'])
    .where('job_id', '=', jobId)
    .orderBy('id')
    .execute();
}

/** Newest first; `since` compares with the creation time. */
export async function listJobs(
  db: Db,
  companyId: number,
  query: HistoryQuery,
): Promise<{ rows: JobRow[]; total: number }> {
  let base = db.selectFrom('print_jobs').where('company_id', '=', companyId);
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
  return { rows, total };
}

// Compiled once (prepared): every agent's config read asks it (a poll of a printer member
// asks its own route's alone, with its row: printer-members.ts).
const queuedRouteRows = prepared((db, p: { companyId: number }) =>
  db
    .selectFrom('print_jobs')
    .select('route')
    .distinct()
    .where('company_id', '=', p.companyId)
    // A constant, so the partial queue index (`status = 'queued'`) serves it.
    .where('status', '=', sql.lit('queued')),
);

/** The routes with jobs queued (the partial queue index holds them). */
export async function queuedRoutes(db: Db, companyId: number): Promise<string[]> {
  const rows = await queuedRouteRows(db, { companyId });
  return rows.map((row) => row.route);
}
