import { dataOf, pageOf } from '../../shared/http.ts';
import { startsAsPdf } from '../../shared/pdf-content.ts';
import {
  agentParams,
  agentsQuery,
  createJobBody,
  historyQuery,
  type JobRecord,
  jobDetail,
  jobParams,
  jobRecord,
  queuedJobRecord,
} from '../../shared/printing.ts';
import { agentListingWithUpdate } from '../../shared/releases.ts';
import { invalidField } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { pageReply } from '../http/pagination.ts';
import { type Access, type AnyRoute, created, defineRoute, ok } from '../http/route.ts';
import { withUpdateStatus } from '../releases/index.ts';
import { type AgentContext, agentRoutes, boundJobGuard, tag } from './agent-routes.ts';
import { optionalAgent } from './agents/agent-hook.ts';
import { listAgents } from './agents/list-agents.ts';
import { readAgent } from './agents/read-agent.ts';
import { readRouteServers, withRouteOnline } from './agents/route-online.ts';
import type { Server } from './agents/route-wait-reasons.ts';
import { withWaitReasons } from './agents/route-wait-reasons.ts';
import { cancelJob } from './jobs/cancel-job.ts';
import {
  type JobAsked,
  refuseUnprintableOptions,
  unprintableOptions,
} from './jobs/check-job-options.ts';
import { createJob } from './jobs/create-job.ts';
import { listJobs } from './jobs/list-jobs.ts';
import { readJobDetail } from './jobs/read-job.ts';
import { reprintJob } from './jobs/reprint-job.ts';
import { retryJob } from './jobs/retry-job.ts';

/**
 * The print queue's routes: the agent's own (agent-routes.ts), then what integrators use —
 * queue, read, retry, reprint and cancel jobs, and see the agents and their printers.
 */

const agentOrReader: Access = { permission: 'printing.agent', alsoAccepts: ['printing.jobs.read'] };
const agentOrCreator: Access = {
  permission: 'printing.agent',
  alsoAccepts: ['printing.jobs.create'],
};
const optionalAgentNote =
  'Also accepts `printing.jobs.create` (integrators); `X-Agent-Id` may be left out, and when sent it must name an agent registered by the company (400, 409) and, for a token bound to one agent, that agent (403). A token bound to one agent acts as it, header or not, and only on the jobs that agent claimed (printed, failed or holds; 403 otherwise).';
const routeOnlineNote =
  "`route_online` says whether an online agent that is not paused serves the job's route; false still queues the job.";
const jobUrl = (baseUrl: string, id: number) =>
  `${baseUrl.slice(0, baseUrl.indexOf('/printing/'))}/printing/jobs/${id}`;

/**
 * A job just queued, with `route_online` and `wait_reason`; one that starts out waiting (no
 * agent, its printers out of paper…) sends `print_job.waiting` once (docs/webhooks.md). The
 * reason comes from the route's rows the create read once (`servers`, which the options check
 * read too; a retry or reprint reads them here); a company without such an endpoint pays a
 * look at the subscription cache.
 */
const queued = async (
  job: JobRecord,
  servers: Server[] | undefined,
  { caller, services, db }: Pick<AgentContext, 'caller' | 'services' | 'db'>,
) => {
  const rows =
    servers ??
    (await readRouteServers(db, caller.companyId, job.route, services.printing.presence()));
  const answer = withRouteOnline(job, rows, services.printing.presence());
  if (answer.wait_reason !== null) {
    await services.printing.queue.outbox.record(db, {
      companyId: caller.companyId,
      type: 'print_job.waiting',
      at: answer.updated_at,
      data: () => {
        const { route_online: _online, ...record } = answer;
        return record;
      },
    });
  }
  return answer;
};

/**
 * The route's rows a create needs (`readRouteServers`): one agent that can print the job as
 * asked, or, when there is none, every row, for the reason and the refusal.
 */
const readServersFor = (
  job: JobAsked,
  { caller, services, db }: Pick<AgentContext, 'caller' | 'services' | 'db'>,
) => {
  const presence = services.printing.presence();
  return readRouteServers(
    db,
    caller.companyId,
    job.route,
    presence,
    (rows) => unprintableOptions(rows, job, presence) === null,
  );
};

const integratorRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/printing/jobs',
    access: { permission: 'printing.jobs.create' },
    operationId: 'createPrintJob',
    summary: 'Queue a print job',
    description: `Extension. Either bytes (\`content_type\`, \`content_base64\`) or data for a template (\`template\`: its name or id, and \`data\`, checked against its \`data_schema\`; rendered when an agent claims it, for the profile of that agent's route: docs/templates.md); both or neither → 422. The content is stored once per company and sha256; priority 9 is printed first; \`expires_in\` seconds after which an unclaimed job expires (without it, the server's hold limit, 24 h by default: a job waiting for a printer does not wait forever). Body up to 16 MiB. \`application/pdf\` content must start with \`%PDF-\` (422 otherwise). Options no printer of the route's online agents supports (their reported \`capabilities\`) → 422 naming what they support; a template no printer of the route can print (a label to a route whose profiles are all receipt printers') → 422 on \`template\` naming what the route prints. ${routeOnlineNote}`,
    tag,
    body: createJobBody,
    bodyLimit: 16 * 1024 * 1024,
    idempotent: true,
    responses: {
      201: {
        description: 'The job, queued.',
        schema: dataOf(queuedJobRecord),
        headers: { Location: 'URL of the new job.' },
      },
    },
    async handler({ body, caller, services, baseUrl, db }) {
      const { content_base64, content_type, template, data, ...rest } = body;
      if (template !== undefined && data !== undefined) {
        const asked = { ...rest, content_type: null };
        const servers = await readServersFor(asked, { caller, services, db });
        refuseUnprintableOptions(servers, asked, services.printing.presence());
        const { queue } = services.printing;
        const job = await queue.renderer.createFromTemplate(
          queue,
          db,
          caller.companyId,
          { ...rest, template, data, holdSeconds: services.config.holdSeconds },
          services.clock.now(),
        );
        return created(
          await queued(job, servers, { caller, services, db }),
          `${baseUrl}/${job.id}`,
        );
      }
      const content = Buffer.from(content_base64 ?? '', 'base64');
      if (content.length === 0) {
        throw invalidField(
          'content_base64',
          'The content base64 field must not decode to nothing.',
        );
      }
      if (content_type === 'application/pdf' && !startsAsPdf(content)) {
        throw invalidField(
          'content_base64',
          'The content base64 field must hold a PDF document (starting with %PDF-) when the content type is application/pdf.',
        );
      }
      const bytes = { ...rest, content_type: content_type ?? 'application/pdf' };
      const servers = await readServersFor(bytes, { caller, services, db });
      refuseUnprintableOptions(servers, bytes, services.printing.presence());
      const job = await createJob(
        services.printing.queue,
        db,
        caller.companyId,
        { ...bytes, content, holdSeconds: services.config.holdSeconds },
        services.clock.now(),
      );
      return created(await queued(job, servers, { caller, services, db }), `${baseUrl}/${job.id}`);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/agents',
    access: { permission: 'printing.jobs.read' },
    operationId: 'listPrintAgents',
    summary: "The company's print agents",
    description:
      'Extension. By name, paginated: each agent with `online` (a heartbeat within two heartbeat intervals; a printer that polls ShopDesk itself: a poll within three of its polling intervals, 30 s at least), `last_seen_at`, `paused`, its routes, its printers as it last reported them (with their `capabilities`), and `update`: the newest agent build offered to it and whether its `version` is `behind`.',
    tag,
    query: agentsQuery,
    responses: {
      200: { description: 'A page of agents.', schema: pageOf(agentListingWithUpdate) },
    },
    async handler({ query, caller, services, baseUrl, db }) {
      const { rows, total } = await listAgents(
        db,
        caller.companyId,
        query,
        services.printing.presence(),
      );
      const listed = await withUpdateStatus(db, caller.companyId, rows);
      return pageReply(listed, total, query, baseUrl);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/agents/{uuid}',
    access: { permission: 'printing.jobs.read' },
    operationId: 'getPrintAgent',
    summary: 'One print agent',
    description: 'Extension. As in the list; an agent of another company → 404.',
    tag,
    params: agentParams,
    responses: { 200: { description: 'The agent.', schema: dataOf(agentListingWithUpdate) } },
    async handler({ params, caller, services, db }) {
      const agent = await readAgent(
        db,
        caller.companyId,
        params.uuid,
        services.printing.presence(),
      );
      const [listed] = await withUpdateStatus(db, caller.companyId, [agent]);
      return ok(listed);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/history',
    access: agentOrReader,
    operationId: 'listPrintHistory',
    agentHeader: 'checked',
    summary: 'Print history',
    description:
      "The company's jobs, newest first; `since` (ISO 8601) compares with the creation time. Also accepts `printing.jobs.read`. A token bound to one agent lists only the jobs that agent holds or held (`agent_id` naming another → 403).",
    tag,
    query: historyQuery,
    responses: { 200: { description: 'A page of jobs.', schema: pageOf(jobRecord) } },
    async handler({ query, caller, services, baseUrl, db }) {
      const { store } = services.printing;
      // A bound token sees its own agent's jobs only (docs/security.md).
      const bound = caller.agentUuid;
      if (
        bound !== null &&
        query.agent_id !== undefined &&
        query.agent_id.toLowerCase() !== bound
      ) {
        throw new HttpError(
          'forbidden',
          `This token is bound to the print agent ${bound} and cannot read the jobs of agent ${query.agent_id}.`,
        );
      }
      const scoped = bound === null ? query : { ...query, agent_id: bound };
      const { rows, total } = await listJobs(store, db, caller.companyId, scoped);
      const { page: _page, per_page: _perPage, ...filters } = query;
      const presence = services.printing.presence();
      const explained = await withWaitReasons(db, caller.companyId, rows, presence);
      return pageReply(explained, total, query, baseUrl, filters);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/jobs/{job}',
    access: agentOrReader,
    operationId: 'getPrintJob',
    agentHeader: 'checked',
    summary: 'Read a job, with its events',
    description:
      'Also accepts `printing.jobs.read`. A token bound to one agent reads only the jobs that agent holds or held (403 otherwise).',
    tag,
    params: jobParams,
    responses: { 200: { description: 'The job and its events.', schema: dataOf(jobDetail) } },
    async handler({ params, caller, services, db }) {
      const { store } = services.printing;
      const job = await readJobDetail(
        store,
        db,
        caller.companyId,
        params.job,
        boundJobGuard(caller),
      );
      const presence = services.printing.presence();
      const [explained] = await withWaitReasons(db, caller.companyId, [job], presence);
      return ok(explained);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/retry',
    access: agentOrCreator,
    operationId: 'retryPrintJob',
    agentHeader: 'checked',
    summary: 'Retry a failed, expired or cancelled job (same id)',
    description: `\`failed | expired | cancelled → queued\`; any other state → 409. ${routeOnlineNote} ${optionalAgentNote}`,
    tag,
    params: jobParams,
    idempotent: true,
    responses: { 200: { description: 'The job, queued again.', schema: dataOf(queuedJobRecord) } },
    async handler({ params, caller, services, db, hooked }) {
      const agent = optionalAgent(hooked);
      const job = await retryJob(
        services.printing.queue,
        db,
        caller.companyId,
        params.job,
        agent?.uuid ?? null,
        services.clock.now(),
        boundJobGuard(caller),
      );
      return ok(await queued(job, undefined, { caller, services, db }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/reprint',
    access: agentOrCreator,
    operationId: 'reprintPrintJob',
    agentHeader: 'checked',
    summary: 'Reprint a printed or failed job (a new job)',
    description: `\`printed | failed →\` a new queued job with \`reprint_of\` set and the same document; any other state → 409. ${routeOnlineNote} ${optionalAgentNote}`,
    tag,
    params: jobParams,
    idempotent: true,
    responses: {
      201: {
        description: 'The new job.',
        schema: dataOf(queuedJobRecord),
        headers: { Location: 'URL of the new job.' },
      },
    },
    async handler({ params, caller, services, baseUrl, db }) {
      const job = await reprintJob(
        services.printing.queue,
        db,
        caller.companyId,
        params.job,
        services.clock.now(),
        boundJobGuard(caller),
      );
      return created(
        await queued(job, undefined, { caller, services, db }),
        jobUrl(baseUrl, job.id),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/cancel',
    access: { permission: 'printing.jobs.create' },
    operationId: 'cancelPrintJob',
    summary: 'Cancel a queued job',
    description:
      'Extension. `queued → cancelled`, a final state (a retry queues it again, same id); a job already claimed, printed, failed, expired or cancelled → 409 naming its state.',
    tag,
    params: jobParams,
    idempotent: true,
    responses: { 200: { description: 'The job, cancelled.', schema: dataOf(jobRecord) } },
    async handler({ params, caller, services, db }) {
      const { queue } = services.printing;
      return ok(await cancelJob(queue, db, caller.companyId, params.job, services.clock.now()));
    },
  }),
];

export const printingRoutes: AnyRoute[] = [...agentRoutes, ...integratorRoutes];
