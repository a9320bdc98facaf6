import { type ExpressionBuilder, sql } from 'kysely';
import type { ConsoleJobsQuery, JobChoicesRecord } from '../../../shared/console-jobs.ts';
import type { JobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import type { Database } from '../../storage/schema.ts';
import { isoNow } from '../../time.ts';
import { backupPrintersOf } from '../agents/records.ts';
import { toJobRecord } from './records.ts';

type Jobs = ExpressionBuilder<Database, 'print_jobs'>;

const maxId = 2 ** 31 - 1;

/** `%`, `_` and `\` taken as themselves in a LIKE pattern (with `escape '\'`). */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The title contains the words (any case), or the job's number is the search ("1043",
 * "#1043"). `lower(…) like` reads the same on SQLite and PostgreSQL. The jobs are read
 * newest first along the company's index and the scan stops at the page's last row, so a
 * common word costs a few rows; a word no job has reads the company's titles once
 * (bench/console.ts measures it over 100,000 jobs: docs/benchmarks.md).
 */
function matchesSearch(search: string) {
  const pattern = `%${likeLiteral(search.toLowerCase())}%`;
  const digits = /^#?([0-9]{1,10})$/.exec(search)?.[1];
  // Ids are 32-bit integers: a longer number is no job's (and PostgreSQL refuses to compare).
  const number = digits === undefined || Number(digits) > maxId ? undefined : Number(digits);
  return (eb: Jobs) =>
    eb.or([
      eb(sql`lower(print_jobs.title)`, 'like', sql`${pattern} escape '\\'`),
      ...(number === undefined ? [] : [eb('print_jobs.id', '=', number)]),
    ]);
}

/**
 * The printer a job went to: the one that printed it, else (failed, or held) the printer
 * its route goes to on the agent that holds or held it.
 */
function wentToPrinter(printer: string) {
  return (eb: Jobs) =>
    eb.or([
      eb('print_jobs.printer', '=', printer),
      eb.and([
        eb('print_jobs.printer', 'is', null),
        eb.exists(
          eb
            .selectFrom('print_routes as r')
            .innerJoin('print_agents as a', 'a.id', 'r.agent_id')
            .select(sql`1`.as('one'))
            .whereRef('a.uuid', '=', 'print_jobs.agent_id')
            .whereRef('r.name', '=', 'print_jobs.route')
            .where('r.printer', '=', printer),
        ),
      ]),
    ]);
}

/** The company's jobs matching the filters (no order, no limit): the list and "retry all". */
export function jobsMatching(
  db: Db,
  companyId: number,
  filters: Omit<ConsoleJobsQuery, 'page' | 'per_page'>,
) {
  let base = db.selectFrom('print_jobs').where('print_jobs.company_id', '=', companyId);
  if (filters.status) base = base.where('print_jobs.status', '=', filters.status);
  if (filters.route) base = base.where('print_jobs.route', '=', filters.route);
  if (filters.agent_id) {
    base = base.where('print_jobs.agent_id', '=', filters.agent_id.toLowerCase());
  }
  if (filters.since) {
    base = base.where('print_jobs.created_at', '>=', isoNow(new Date(filters.since)));
  }
  if (filters.printer) base = base.where(wentToPrinter(filters.printer));
  if (filters.search) base = base.where(matchesSearch(filters.search));
  return base;
}

/** A page of jobs, newest first, and whether older ones match too: one row more is read, none counted. */
export async function listConsoleJobs(
  db: Db,
  companyId: number,
  query: ConsoleJobsQuery,
): Promise<{ rows: JobRecord[]; hasMore: boolean }> {
  const rows = await consoleJobsPage(db, companyId, query).execute();
  const perPage = query.per_page;
  return { rows: rows.slice(0, perPage).map(toJobRecord), hasMore: rows.length > perPage };
}

/**
 * The page's read: the company's jobs newest first, one more than the page. The index by
 * company (`print_jobs_company`, whose entries follow the row id) gives them in that order,
 * so a page reads its rows and stops.
 */
export function consoleJobsPage(db: Db, companyId: number, query: ConsoleJobsQuery) {
  const { page, per_page: perPage, ...filters } = query;
  return jobsMatching(db, companyId, filters)
    .selectAll('print_jobs')
    .orderBy('print_jobs.id', 'desc')
    .limit(perPage + 1)
    .offset((page - 1) * perPage);
}

/** Each job with its agent's name and the printer it went to (one read for the whole page). */
export async function withWhere<T extends JobRecord>(
  db: Db,
  companyId: number,
  jobs: T[],
): Promise<(T & { agent_name: string | null; printer_name: string | null })[]> {
  const uuids = [...new Set(jobs.flatMap((job) => (job.agent_id ? [job.agent_id] : [])))];
  const routes =
    uuids.length === 0
      ? []
      : await db
          .selectFrom('print_agents as a')
          .leftJoin('print_routes as r', 'r.agent_id', 'a.id')
          .select(['a.uuid', 'a.name', 'r.name as route', 'r.printer'])
          .where('a.company_id', '=', companyId)
          .where('a.uuid', 'in', uuids)
          .execute();
  const agentName = new Map(routes.map((row) => [row.uuid, row.name]));
  const routePrinter = new Map(routes.map((row) => [`${row.uuid} ${row.route}`, row.printer]));
  return jobs.map((job) => ({
    ...job,
    agent_name: job.agent_id ? (agentName.get(job.agent_id) ?? null) : null,
    printer_name: job.printer ?? routePrinter.get(`${job.agent_id} ${job.route}`) ?? null,
  }));
}

/**
 * The routes and printers the filters offer: those the company's agents have (backup printers
 * too: a job may have printed on one), and the routes
 * jobs wait on that no agent has (the queue's partial index holds those: a short read).
 */
export async function readJobChoices(db: Db, companyId: number): Promise<JobChoicesRecord> {
  const rows = await db
    .selectFrom('print_routes')
    .select(['name', 'printer', 'backup_printers'])
    .where('company_id', '=', companyId)
    .execute();
  const waiting = await db
    .selectFrom('print_jobs')
    .select('route')
    .distinct()
    .where('company_id', '=', companyId)
    .where('status', '=', 'queued')
    .execute();
  const sorted = (values: string[]) => [...new Set(values)].sort((a, b) => a.localeCompare(b));
  return {
    routes: sorted([...rows.map((row) => row.name), ...waiting.map((row) => row.route)]),
    printers: sorted(
      rows.flatMap((row) => [row.printer, ...backupPrintersOf(row.backup_printers)]),
    ),
  };
}
