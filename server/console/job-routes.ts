import {
  consoleJobDetail,
  consoleJobPage,
  consoleJobsQuery,
  jobChoicesRecord,
  retryFailedBody,
  retryFailedRecord,
} from '../../shared/console-jobs.ts';
import { dataOf } from '../../shared/http.ts';
import { jobParams } from '../../shared/printing.ts';
import { HttpError } from '../http/errors.ts';
import { type AnyRoute, defineRoute, ok } from '../http/route.ts';
import {
  listConsoleJobs,
  readJobChoices,
  readJobDetail,
  retryFailedJobs,
  withWaitReasons,
  withWhere,
} from '../printing/index.ts';
import type { Caller } from '../tokens/index.ts';
import { personOf, tag } from './person-routes.ts';

/** A signed-in person holding `permission` (every role reads jobs; staff and up retry them). */
function personWith(caller: Caller, permission: 'printing.jobs.read' | 'printing.jobs.create') {
  const person = personOf(caller);
  if (!caller.permissions.has(permission)) {
    throw new HttpError(
      'forbidden',
      `The role ${person.role} may not do this: it needs the permission ${permission}.`,
    );
  }
}

/**
 * The jobs page's own reads (docs/console.md, "Jobs"): the list with search and no total,
 * a job with where it went in names, the filters' choices; and "Retry all failed".
 */
export const jobRoutes: AnyRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/console/jobs',
    access: 'session',
    hidden: true,
    operationId: 'consoleListJobs',
    summary: 'Jobs newest first, searched and filtered, with agent and printer names; no total',
    tag,
    query: consoleJobsQuery,
    responses: { 200: { description: 'A page of jobs.', schema: consoleJobPage } },
    async handler({ query, caller, services, db }) {
      personWith(caller, 'printing.jobs.read');
      const { companyId } = caller;
      // Every open jobs page of the company reads it again at each live change.
      const body = await services.live.reads.read(
        `jobs:${companyId}:${JSON.stringify(query)}`,
        async () => {
          const { rows, hasMore } = await listConsoleJobs(db, companyId, query);
          const presence = services.printing.presence();
          const explained = await withWaitReasons(db, companyId, rows, presence);
          return {
            data: await withWhere(db, companyId, explained),
            meta: { current_page: query.page, per_page: query.per_page, has_more: hasMore },
          };
        },
      );
      return { status: 200, body };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/console/jobs/choices',
    access: 'session',
    hidden: true,
    operationId: 'consoleJobChoices',
    summary: "The routes and printers the jobs page's filters offer",
    tag,
    responses: { 200: { description: 'The choices.', schema: dataOf(jobChoicesRecord) } },
    async handler({ caller, db }) {
      personWith(caller, 'printing.jobs.read');
      return ok(await readJobChoices(db, caller.companyId));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/console/jobs/{job}',
    access: 'session',
    hidden: true,
    operationId: 'consoleReadJob',
    summary: 'A job with its events, its agent by name and the printer it went to',
    tag,
    params: jobParams,
    responses: { 200: { description: 'The job.', schema: dataOf(consoleJobDetail) } },
    async handler({ params, caller, services, db }) {
      personWith(caller, 'printing.jobs.read');
      const { store } = services.printing;
      const job = await readJobDetail(store, db, caller.companyId, params.job);
      const presence = services.printing.presence();
      const explained = await withWaitReasons(db, caller.companyId, [job], presence);
      const [named] = await withWhere(db, caller.companyId, explained);
      return ok(named);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/console/jobs/retry-failed',
    access: 'session',
    hidden: true,
    operationId: 'consoleRetryFailedJobs',
    summary: 'Retry the failed jobs of a route and/or printer (those a retry can help)',
    tag,
    body: retryFailedBody,
    responses: { 200: { description: 'How many.', schema: dataOf(retryFailedRecord) } },
    async handler({ body, caller, services, db }) {
      personWith(caller, 'printing.jobs.create');
      const queue = services.printing.queue;
      return ok(await retryFailedJobs(queue, db, caller.companyId, body, services.clock.now()));
    },
  }),
];
