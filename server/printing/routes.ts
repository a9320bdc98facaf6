import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { dataOf, pageOf } from '../../shared/http.ts';
import {
  agentConfig,
  agentIdHeader,
  agentListing,
  agentParams,
  agentRecord,
  agentsQuery,
  claimedJob,
  confirmJobBody,
  createJobBody,
  heartbeatBody,
  heartbeatResult,
  historyQuery,
  type JobRecord,
  jobDetail,
  jobParams,
  jobRecord,
  nextJobBody,
  printRouteSchema,
  putRoutesBody,
  queuedJobRecord,
  registerAgentBody,
  reportErrorBody,
} from '../../shared/printing.ts';
import { invalidField } from '../domain-errors.ts';
import { HttpError } from '../http/errors.ts';
import { pageReply } from '../http/pagination.ts';
import {
  type Access,
  type AnyRoute,
  created,
  defineRoute,
  noContent,
  ok,
  type RequestContext,
} from '../http/route.ts';
import {
  type AgentRef,
  agentConfigOf,
  recordHeartbeat,
  registerAgent,
  replaceAgentRoutes,
  toAgentRecord,
} from './agents.ts';
import { cancelJob } from './cancel-job.ts';
import { createJob } from './create-job.ts';
import { getJobDetail, listHistory } from './jobs.ts';
import { getAgent, listAgents, withRouteOnline } from './list-agents.ts';
import { confirmJob, reportJobError } from './report-job.ts';
import { reprintJob, retryJob } from './requeue-job.ts';

const tag = 'Print queue';
const agentOnly: Access = { permission: 'printing.agent' };
const agentOrReader: Access = { permission: 'printing.agent', alsoAccepts: ['printing.jobs.read'] };
const agentOrCreator: Access = {
  permission: 'printing.agent',
  alsoAccepts: ['printing.jobs.create'],
};
const agentHeaderNote =
  "Needs the header `X-Agent-Id` of an agent registered by the caller's company: missing or not a UUID → 400; not registered (or registered by another company) → 409.";
const optionalAgentNote =
  'Also accepts `printing.jobs.create` (integrators); `X-Agent-Id` may be left out, and when sent it must name an agent registered by the company (400, 409).';
const routeOnlineNote =
  "`route_online` says whether an online agent that is not paused serves the job's route; false still queues the job.";
const oneJob = { 200: { description: 'The job.', schema: dataOf(jobRecord) } };
const jobUrl = (baseUrl: string, id: number) =>
  `${baseUrl.slice(0, baseUrl.indexOf('/printing/'))}/printing/jobs/${id}`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The X-Agent-Id header: missing or not a UUID is the request's fault (400). */
function agentIdOf(request: IncomingMessage): string {
  const header = request.headers[agentIdHeader];
  const uuid = Array.isArray(header) ? header[0] : header;
  if (!uuid) {
    throw new HttpError(
      'bad_request',
      'The X-Agent-Id header is required: send the UUID the agent registered with POST /printing/register.',
    );
  }
  if (!uuidPattern.test(uuid)) {
    throw new HttpError('bad_request', 'The X-Agent-Id header must be a UUID.');
  }
  return uuid;
}

type AgentContext = Pick<
  RequestContext<unknown, unknown, unknown>,
  'request' | 'caller' | 'services'
>;

/** The registered agent that X-Agent-Id names, in the caller's company (else 409). */
const callingAgent = ({ request, caller, services }: AgentContext): Promise<AgentRef> =>
  services.printing.requireAgent(agentIdOf(request), caller.companyId);

/** Routes that also serve integrators: X-Agent-Id may be left out, but if sent it must hold. */
async function optionalAgent(context: AgentContext): Promise<AgentRef | undefined> {
  if (context.request.headers[agentIdHeader] === undefined) return undefined;
  return callingAgent(context);
}

/** A job just queued, with `route_online`. */
const queued = (job: JobRecord, { caller, services }: Pick<AgentContext, 'caller' | 'services'>) =>
  withRouteOnline(services.storage.db, caller.companyId, job, services.printing.presence());

export const printingRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/printing/register',
    access: agentOnly,
    operationId: 'registerPrintAgent',
    summary: 'Register the print agent',
    description:
      'Idempotent per `uuid`: 201 the first time, 200 after (name, hostname, platform, version and printers are refreshed). A uuid registered by another company → 409.',
    tag,
    body: registerAgentBody,
    responses: {
      200: { description: 'Already registered; refreshed.', schema: dataOf(agentRecord) },
      201: {
        description: 'Registered.',
        schema: dataOf(agentRecord),
        headers: { Location: "URL of the agent's configuration." },
      },
    },
    async handler({ body, caller, services, baseUrl }) {
      const now = services.clock.now();
      const { row, created: isNew } = await registerAgent(
        services.storage,
        caller.companyId,
        body,
        now,
      );
      const record = toAgentRecord(row, now, services.config.heartbeatSeconds);
      if (!isNew) return ok(record);
      return created(record, baseUrl.replace(/\/register$/, '/config'));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/heartbeat',
    access: agentOnly,
    operationId: 'printAgentHeartbeat',
    summary: 'Report presence; extend the leases of held jobs',
    description: `Updates presence (an agent is online while heartbeats arrive within 2 heartbeat intervals), printers and the paused flag, and extends the lease of each job in \`held_job_ids\` that the agent still holds. ${agentHeaderNote}`,
    tag,
    body: heartbeatBody.default({ held_job_ids: [] }),
    responses: { 200: { description: 'Leases extended.', schema: dataOf(heartbeatResult) } },
    async handler({ body, caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      const result = await recordHeartbeat(
        services.storage,
        agent,
        body,
        services.clock.now(),
        services.config.leaseSeconds,
      );
      return ok(result);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/config',
    access: agentOnly,
    operationId: 'getPrintAgentConfig',
    summary: "Read the agent's configuration",
    description: `The company, the agent, its saved routes, every route name the company uses, and the intervals (long-poll wait, heartbeat, lease). ${agentHeaderNote}`,
    tag,
    responses: { 200: { description: 'The configuration.', schema: dataOf(agentConfig) } },
    async handler({ caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      const config = await agentConfigOf(
        services.storage,
        agent,
        { id: caller.companyId, name: caller.companyName },
        services.config,
        services.clock.now(),
      );
      return ok(config);
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/printing/routes',
    access: agentOnly,
    operationId: 'putPrintRoutes',
    summary: "Replace the agent's routes",
    description: `The agent then serves exactly these routes. ${agentHeaderNote}`,
    tag,
    body: putRoutesBody,
    responses: {
      200: {
        description: 'The saved routes.',
        schema: dataOf(z.object({ routes: z.array(printRouteSchema) })),
      },
    },
    async handler({ body, caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      const routes = await replaceAgentRoutes(services.storage, agent, body.routes);
      services.printing.routesChanged(agent);
      return ok({ routes });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs',
    access: { permission: 'printing.jobs.create' },
    operationId: 'createPrintJob',
    summary: 'Queue a print job',
    description: `Extension. The content is stored once per company and sha256; priority 9 is printed first; \`expires_in\` seconds after which an unclaimed job expires. Body up to 16 MiB. ${routeOnlineNote}`,
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
    async handler({ body, caller, services, baseUrl }) {
      const { content_base64, ...rest } = body;
      const content = Buffer.from(content_base64, 'base64');
      if (content.length === 0) {
        throw invalidField(
          'content_base64',
          'The content base64 field must not decode to nothing.',
        );
      }
      const job = await createJob(
        services.printing.queue,
        caller.companyId,
        { ...rest, content },
        services.clock.now(),
      );
      return created(await queued(job, { caller, services }), `${baseUrl}/${job.id}`);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/next',
    access: agentOnly,
    operationId: 'claimNextPrintJob',
    summary: 'Claim the next job (long-poll)',
    description: `The oldest job of the highest priority queued on one of the agent's enabled routes, claimed for it with its document; waits up to \`wait\` seconds for one, else 204. After each wake-up the token is read again: revoked or expired meanwhile (or the agent gone) → 401, and nothing is claimed. ${agentHeaderNote}`,
    tag,
    body: nextJobBody.default({ wait: 0 }),
    responses: {
      200: { description: 'A job, claimed for this agent.', schema: dataOf(claimedJob) },
      204: { description: 'No job came within `wait`.' },
    },
    async handler({ body, caller, services, request, signal, stillAuthenticated }) {
      const agent = await callingAgent({ request, caller, services });
      const job = await services.printing.nextJob(
        agent,
        body.wait,
        signal,
        async () =>
          (await stillAuthenticated()) && (await services.printing.agentStillRegistered(agent)),
      );
      if (job === 'refused') {
        throw new HttpError('unauthenticated', 'The token was revoked or expired while waiting.', {
          headers: { 'www-authenticate': 'Bearer realm="shopdesk", error="invalid_token"' },
        });
      }
      if (job) return ok(job);
      // Woken by shutdown: answer, and close the connection so the server can stop now.
      if (signal.aborted) return { status: 204, headers: { connection: 'close' } };
      return noContent();
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/agents',
    access: { permission: 'printing.jobs.read' },
    operationId: 'listPrintAgents',
    summary: "The company's print agents",
    description:
      'Extension. By name, paginated: each agent with `online` (a heartbeat within two heartbeat intervals), `last_seen_at`, `paused`, its routes, and its printers as it last reported them.',
    tag,
    query: agentsQuery,
    responses: { 200: { description: 'A page of agents.', schema: pageOf(agentListing) } },
    async handler({ query, caller, services, baseUrl }) {
      const db = services.storage.db;
      const { rows, total } = await listAgents(
        db,
        caller.companyId,
        query,
        services.printing.presence(),
      );
      return pageReply(rows, total, query, baseUrl);
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
    responses: { 200: { description: 'The agent.', schema: dataOf(agentListing) } },
    async handler({ params, caller, services }) {
      const db = services.storage.db;
      return ok(await getAgent(db, caller.companyId, params.uuid, services.printing.presence()));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/history',
    access: agentOrReader,
    operationId: 'listPrintHistory',
    summary: 'Print history',
    description:
      "The company's jobs, newest first; `since` (ISO 8601) compares with the creation time. Also accepts `printing.jobs.read`.",
    tag,
    query: historyQuery,
    responses: { 200: { description: 'A page of jobs.', schema: pageOf(jobRecord) } },
    async handler({ query, caller, services, request, baseUrl }) {
      await optionalAgent({ request, caller, services });
      const { rows, total } = await listHistory(services.storage, caller.companyId, query);
      const { page: _page, per_page: _perPage, ...filters } = query;
      return pageReply(rows, total, query, baseUrl, filters);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/jobs/{job}',
    access: agentOrReader,
    operationId: 'getPrintJob',
    summary: 'Read a job, with its events',
    description: 'Also accepts `printing.jobs.read`.',
    tag,
    params: jobParams,
    responses: { 200: { description: 'The job and its events.', schema: dataOf(jobDetail) } },
    async handler({ params, caller, services, request }) {
      await optionalAgent({ request, caller, services });
      return ok(await getJobDetail(services.storage.db, caller.companyId, params.job));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/retry',
    access: agentOrCreator,
    operationId: 'retryPrintJob',
    summary: 'Retry a failed, expired or cancelled job (same id)',
    description: `\`failed | expired | cancelled → queued\`; any other state → 409. ${routeOnlineNote} ${optionalAgentNote}`,
    tag,
    params: jobParams,
    idempotent: true,
    responses: { 200: { description: 'The job, queued again.', schema: dataOf(queuedJobRecord) } },
    async handler({ params, caller, services, request }) {
      const agent = await optionalAgent({ request, caller, services });
      const job = await retryJob(
        services.printing.queue,
        caller.companyId,
        params.job,
        agent?.uuid ?? null,
        services.clock.now(),
      );
      return ok(await queued(job, { caller, services }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/reprint',
    access: agentOrCreator,
    operationId: 'reprintPrintJob',
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
    async handler({ params, caller, services, request, baseUrl }) {
      await optionalAgent({ request, caller, services });
      const job = await reprintJob(
        services.printing.queue,
        caller.companyId,
        params.job,
        services.clock.now(),
      );
      return created(await queued(job, { caller, services }), jobUrl(baseUrl, job.id));
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
    async handler({ params, caller, services }) {
      return ok(
        await cancelJob(services.storage, caller.companyId, params.job, services.clock.now()),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/confirm',
    access: agentOnly,
    operationId: 'confirmPrintJob',
    summary: 'Confirm that a held job printed',
    description: `Only the holder (409 otherwise); confirming again is 200 with no change. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    body: confirmJobBody.default({}),
    responses: oneJob,
    async handler({ params, body, caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      return ok(
        await confirmJob(services.storage, agent, params.job, body.printer, services.clock.now()),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/error',
    access: agentOnly,
    operationId: 'reportPrintJobError',
    summary: 'Report that a held job failed',
    description: `Only the holder (409 otherwise): the job becomes \`failed\` with the message and code. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    body: reportErrorBody,
    responses: oneJob,
    async handler({ params, body, caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      return ok(
        await reportJobError(services.storage, agent, params.job, body, services.clock.now()),
      );
    },
  }),
];
