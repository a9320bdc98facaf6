import { z } from 'zod';
import { dataOf } from '../../shared/http.ts';
import {
  agentConfig,
  agentRecord,
  claimedJob,
  confirmJobBody,
  heartbeatBody,
  heartbeatResult,
  jobParams,
  jobRecord,
  nextJobBody,
  printRouteSchema,
  putRoutesBody,
  registerAgentBody,
  releaseJobBody,
  reportErrorBody,
} from '../../shared/printing.ts';
import { HttpError } from '../http/errors.ts';
import {
  type Access,
  type AnyRoute,
  created,
  defineRoute,
  noContent,
  ok,
  type RequestContext,
} from '../http/route.ts';
import { boundJobGuard, routesBeyondGrant } from './agents/agent-binding.ts';
import { callingAgent, refuseOtherAgent } from './agents/agent-hook.ts';
import { agentPresentSeconds } from './agents/presence.ts';
import { readAgentConfig } from './agents/read-agent-config.ts';
import { recordHeartbeat } from './agents/record-heartbeat.ts';
import { toAgentRecord } from './agents/records.ts';
import { registerAgent } from './agents/register-agent.ts';
import { signOff } from './agents/sign-off.ts';
import { updateRouteList } from './agents/update-route-list.ts';
import { confirmJob } from './jobs/confirm-job.ts';
import { failJob } from './jobs/fail-job.ts';
import { releaseJob } from './jobs/release-job.ts';

/**
 * The print agent's own routes (permission `printing.agent`): registration, presence,
 * configuration, its routes, the long-poll and the reports on the jobs it holds. The agent a
 * request names (`X-Agent-Id`) is found by the hook its `agentHeader` installs
 * (agents/agent-hook.ts), on the integrators' routes (routes.ts) too.
 */

export const tag = 'Print queue';
const agentOnly: Access = { permission: 'printing.agent' };
const agentHeaderNote =
  "Needs the header `X-Agent-Id` of an agent registered by the caller's company (a token bound to one agent implies its own when the header is left out): missing or not a UUID → 400; another agent than the one the token is bound to → 403; not registered (or registered by another company) → 409.";
const oneJob = { 200: { description: 'The job.', schema: dataOf(jobRecord) } };

export { boundJobGuard };

export type AgentContext = Pick<
  RequestContext<unknown, unknown, unknown>,
  'request' | 'caller' | 'services' | 'db'
>;

export const agentRoutes: AnyRoute[] = [
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
    async handler({ body, caller, services, baseUrl, db }) {
      refuseOtherAgent(caller, body.uuid);
      const now = services.clock.now();
      const { row, created: isNew } = await registerAgent(
        services,
        db,
        caller.companyId,
        body,
        now,
        agentPresentSeconds(services.config.heartbeatSeconds),
      );
      const record = toAgentRecord(row, { now });
      if (!isNew) return ok(record);
      return created(record, baseUrl.replace(/\/register$/, '/config'));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/heartbeat',
    access: agentOnly,
    operationId: 'printAgentHeartbeat',
    agentHeader: 'required',
    summary: 'Report presence; extend the leases of held jobs',
    description: `Updates presence (an agent is online while heartbeats arrive within 2 heartbeat intervals), printers and the paused flag, and extends the lease of each job in \`held_job_ids\` that the agent still holds. ${agentHeaderNote}`,
    tag,
    body: heartbeatBody.default({ held_job_ids: [] }),
    responses: { 200: { description: 'Leases extended.', schema: dataOf(heartbeatResult) } },
    async handler({ body, services, db, hooked }) {
      const agent = callingAgent(hooked);
      const result = await recordHeartbeat(
        services.printing.queue,
        db,
        agent,
        body,
        services.clock.now(),
        {
          leaseSeconds: services.config.leaseSeconds,
          presentSeconds: agentPresentSeconds(services.config.heartbeatSeconds),
        },
      );
      return ok(result);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/offline',
    access: agentOnly,
    operationId: 'printAgentOffline',
    agentHeader: 'required',
    summary: 'Say the agent is stopping: offline at once',
    description: `An agent stopped cleanly (SIGTERM, the tray's Quit) calls it last: it is offline from now (\`agent.offline\` once) instead of one online interval later, and its printers read \`unknown\`; its next registration or heartbeat brings it online again. The jobs it holds keep their leases. Extension. ${agentHeaderNote}`,
    tag,
    responses: { 204: { description: 'Offline.' } },
    async handler({ services, db, hooked }) {
      const agent = callingAgent(hooked);
      await signOff(services.printing.queue, db, agent, services.printing.presence());
      return noContent();
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/config',
    access: agentOnly,
    operationId: 'getPrintAgentConfig',
    agentHeader: 'required',
    summary: "Read the agent's configuration",
    description: `The company, the agent, its saved routes, every route name the company uses, and the intervals (long-poll wait, heartbeat, lease). ${agentHeaderNote}`,
    tag,
    responses: { 200: { description: 'The configuration.', schema: dataOf(agentConfig) } },
    async handler({ caller, services, db, hooked }) {
      const agent = callingAgent(hooked);
      const config = await readAgentConfig(
        services.printing.store,
        db,
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
    agentHeader: 'required',
    summary: "Replace the agent's routes",
    description: `The agent then serves exactly these routes. A token bound to one agent may keep the routes its agent serves and add only the routes it was granted (its enrolment code's, or \`token create --routes\`): another → 403. ${agentHeaderNote}`,
    tag,
    body: putRoutesBody,
    responses: {
      200: {
        description: 'The saved routes.',
        schema: dataOf(
          z.object({
            routes: z.array(printRouteSchema),
            routes_version: z
              .number()
              .int()
              .describe(
                "The agent's count of route changes after this one, as the heartbeat's answer and the configuration carry it.",
              ),
          }),
        ),
      },
    },
    async handler({ body, caller, services, db, hooked }) {
      const agent = callingAgent(hooked);
      if (caller.agentUuid !== null) {
        const names = body.routes.map((route) => route.name);
        const beyond = await routesBeyondGrant(db, caller.tokenId, agent, names);
        if (beyond.length > 0) {
          throw new HttpError(
            'forbidden',
            `This token is bound to the print agent ${agent.uuid} and may not give it the ${beyond.length === 1 ? 'route' : 'routes'} ${beyond.join(', ')}: it keeps the routes it serves and takes only those its token was granted (its enrolment code's routes, or token create --routes).`,
          );
        }
      }
      const saved = await updateRouteList(services.storage, db, agent, body.routes);
      services.printing.routesChanged(agent);
      return ok(saved);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/next',
    access: agentOnly,
    operationId: 'claimNextPrintJob',
    agentHeader: 'required',
    summary: 'Claim the next job (long-poll)',
    description: `The oldest job of the highest priority queued on one of the agent's enabled routes (only those named in \`routes\`, when sent: the ones whose printers can print now), claimed for it with its document; waits up to \`wait\` seconds for one, else 204. After each wake-up the token is read again: revoked or expired meanwhile (or the agent gone) → 401, and nothing is claimed. ${agentHeaderNote}`,
    tag,
    body: nextJobBody.default({ wait: 0 }),
    responses: {
      200: { description: 'A job, claimed for this agent.', schema: dataOf(claimedJob) },
      204: { description: 'No job came within `wait`.' },
    },
    async handler(context) {
      // Not `signal` from the context: a claim that needs no wait never makes it.
      const { body, services, db, stillAuthenticated, hooked } = context;
      const { printing } = services;
      const agent = callingAgent(hooked);
      const job = await printing.nextJob(
        db,
        agent,
        body.wait,
        context,
        async () =>
          (await stillAuthenticated()) && (await printing.agentStillRegistered(db, agent)),
        body.routes,
      );
      if (job === 'refused') {
        throw new HttpError('unauthenticated', 'The token was revoked or expired while waiting.', {
          headers: { 'www-authenticate': 'Bearer realm="shopdesk", error="invalid_token"' },
        });
      }
      if (job) return ok(job);
      // Woken by shutdown: answer, and close the connection so the server can stop now.
      if (context.aborted) return { status: 204, headers: { connection: 'close' } };
      return noContent();
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/confirm',
    access: agentOnly,
    operationId: 'confirmPrintJob',
    agentHeader: 'required',
    summary: 'Confirm that a held job printed',
    description: `Only the holder (409 otherwise); confirming again is 200 with no change. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    body: confirmJobBody.default({}),
    responses: oneJob,
    async handler({ params, body, services, db, hooked }) {
      const agent = callingAgent(hooked);
      const { queue } = services.printing;
      return ok(await confirmJob(queue, db, agent, params.job, body.printer, services.clock.now()));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/error',
    access: agentOnly,
    operationId: 'reportPrintJobError',
    agentHeader: 'required',
    summary: 'Report that a held job failed',
    description: `Only the holder (409 otherwise): the job becomes \`failed\` with the message and code. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    body: reportErrorBody,
    responses: oneJob,
    async handler({ params, body, services, db, hooked }) {
      const agent = callingAgent(hooked);
      const { queue } = services.printing;
      return ok(await failJob(queue, db, agent, params.job, body, services.clock.now()));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/jobs/{job}/release',
    access: agentOnly,
    operationId: 'releasePrintJob',
    agentHeader: 'required',
    summary: 'Give a held job back unprinted (its printer cannot print now)',
    description: `Only the holder (409 otherwise): the job goes back to \`queued\` under its id, not failed, with an event that gives the code and message (\`printer_out_of_paper\`, \`printer_stopped\`, …); it is claimed again once a printer of its route can print. Extension. ${agentHeaderNote}`,
    tag,
    params: jobParams,
    body: releaseJobBody,
    responses: oneJob,
    async handler({ params, body, services, db, hooked }) {
      const agent = callingAgent(hooked);
      const { queue } = services.printing;
      return ok(await releaseJob(queue, db, agent, params.job, body, services.clock.now()));
    },
  }),
];
