import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { dataOf, pageOf } from '../../shared/http.ts';
import {
  agentConfig,
  agentIdHeader,
  agentRecord,
  claimedJob,
  confirmJobBody,
  createJobBody,
  heartbeatBody,
  heartbeatResult,
  historyQuery,
  jobDetail,
  jobParams,
  jobRecord,
  nextJobBody,
  printRouteSchema,
  putRoutesBody,
  registerAgentBody,
  reportErrorBody,
  startsAsPdf,
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
import type { Caller } from '../tokens/authenticate.ts';
import {
  type AgentRef,
  agentConfigOf,
  recordHeartbeat,
  registerAgent,
  replaceAgentRoutes,
  toAgentRecord,
} from './agents.ts';
import { createJob } from './create-job.ts';
import { getJobDetail, listHistory } from './jobs.ts';
import { confirmJob, reportJobError } from './report-job.ts';
import { reprintJob, retryJob } from './requeue-job.ts';

const tag = 'Print queue';
const agentOnly: Access = { permission: 'printing.agent' };
const agentOrReader: Access = { permission: 'printing.agent', alsoAccepts: ['printing.jobs.read'] };
const agentHeaderNote =
  "Needs the header `X-Agent-Id` of an agent registered by the caller's company: missing or not a UUID → 400; another agent than the one the token is bound to → 403; not registered (or registered by another company) → 409.";
const oneJob = { 200: { description: 'The job.', schema: dataOf(jobRecord) } };
const jobUrl = (baseUrl: string, id: number) =>
  `${baseUrl.slice(0, baseUrl.indexOf('/printing/'))}/printing/jobs/${id}`;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A token bound to one agent (`shopdesk token create --agent`) acts as that agent only:
 * naming another is refused (403), before anything is looked up (docs/security.md).
 */
function refuseOtherAgent(caller: Caller, uuid: string): void {
  if (caller.agentUuid === null || caller.agentUuid === uuid.toLowerCase()) return;
  throw new HttpError(
    'forbidden',
    `This token is bound to the print agent ${caller.agentUuid} and cannot act as agent ${uuid.slice(0, 36)}.`,
  );
}

/** The X-Agent-Id header: missing or not a UUID is the request's fault (400). */
function agentIdOf(request: IncomingMessage, caller: Caller): string {
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
  refuseOtherAgent(caller, uuid);
  return uuid;
}

type AgentContext = Pick<
  RequestContext<unknown, unknown, unknown>,
  'request' | 'caller' | 'services'
>;

/** The registered agent that X-Agent-Id names, in the caller's company (else 409). */
const callingAgent = ({ request, caller, services }: AgentContext): Promise<AgentRef> =>
  services.printing.requireAgent(agentIdOf(request, caller), caller.companyId);

/** Routes that also serve integrators: X-Agent-Id may be left out, but if sent it must hold. */
async function checkOptionalAgent(context: AgentContext): Promise<void> {
  if (context.request.headers[agentIdHeader] !== undefined) await callingAgent(context);
}

export const printingRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/printing/register',
    access: agentOnly,
    operationId: 'registerPrintAgent',
    summary: 'Register the print agent',
    description:
      'Idempotent per `uuid`: 201 the first time, 200 after (name, hostname, platform, version and printers are refreshed). A uuid registered by another company → 409; another uuid than the one the token is bound to → 403.',
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
      refuseOtherAgent(caller, body.uuid);
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
    description: `Updates presence (an agent is online while heartbeats arrive within 3 heartbeat intervals), printers and the paused flag, and extends the lease of each job in \`held_job_ids\` that the agent still holds. ${agentHeaderNote}`,
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
    description:
      'Extension. The content is stored once per company and sha256; priority 9 is printed first; `expires_in` seconds after which an unclaimed job expires. Body up to 16 MiB. `application/pdf` content must start with `%PDF-` (422 otherwise).',
    tag,
    body: createJobBody,
    bodyLimit: 16 * 1024 * 1024,
    responses: {
      201: {
        description: 'The job, queued.',
        schema: dataOf(jobRecord),
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
      if (body.content_type === 'application/pdf' && !startsAsPdf(content)) {
        throw invalidField(
          'content_base64',
          'The content base64 field must hold a PDF document (starting with %PDF-) when the content type is application/pdf.',
        );
      }
      const job = await createJob(
        services.printing.queue,
        caller.companyId,
        { ...rest, content },
        services.clock.now(),
      );
      return created(job, `${baseUrl}/${job.id}`);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/next',
    access: agentOnly,
    operationId: 'claimNextPrintJob',
    summary: 'Claim the next job (long-poll)',
    description: `The oldest job of the highest priority queued on one of the agent's enabled routes, claimed for it with its document; waits up to \`wait\` seconds for one, else 204. ${agentHeaderNote}`,
    tag,
    body: nextJobBody.default({ wait: 0 }),
    responses: {
      200: { description: 'A job, claimed for this agent.', schema: dataOf(claimedJob) },
      204: { description: 'No job came within `wait`.' },
    },
    async handler({ body, caller, services, request, signal }) {
      const agent = await callingAgent({ request, caller, services });
      const job = await services.printing.nextJob(agent, body.wait, signal);
      if (job) return ok(job);
      // Woken by shutdown: answer, and close the connection so the server can stop now.
      if (signal.aborted) return { status: 204, headers: { connection: 'close' } };
      return noContent();
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
      await checkOptionalAgent({ request, caller, services });
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
      await checkOptionalAgent({ request, caller, services });
      return ok(await getJobDetail(services.storage.db, caller.companyId, params.job));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/retry',
    access: agentOnly,
    operationId: 'retryPrintJob',
    summary: 'Retry a failed or expired job (same id)',
    description: `\`failed | expired → queued\`; any other state → 409. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    responses: oneJob,
    async handler({ params, caller, services, request }) {
      const agent = await callingAgent({ request, caller, services });
      const job = await retryJob(
        services.printing.queue,
        caller.companyId,
        params.job,
        agent.uuid,
        services.clock.now(),
      );
      return ok(job);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/reprint',
    access: agentOnly,
    operationId: 'reprintPrintJob',
    summary: 'Reprint a printed or failed job (a new job)',
    description: `\`printed | failed →\` a new queued job with \`reprint_of\` set and the same document; any other state → 409. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    responses: {
      201: {
        description: 'The new job.',
        schema: dataOf(jobRecord),
        headers: { Location: 'URL of the new job.' },
      },
    },
    async handler({ params, caller, services, request, baseUrl }) {
      await callingAgent({ request, caller, services });
      const job = await reprintJob(
        services.printing.queue,
        caller.companyId,
        params.job,
        services.clock.now(),
      );
      return created(job, jobUrl(baseUrl, job.id));
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
