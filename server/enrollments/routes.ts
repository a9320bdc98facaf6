import type { IncomingMessage } from 'node:http';
import {
  createdEnrollment,
  createEnrollmentBody,
  enrollmentParams,
  enrollmentRecord,
  redeemEnrollmentBody,
  redeemedEnrollment,
} from '../../shared/enrollments.ts';
import { dataOf, pageOf, pageQuery } from '../../shared/http.ts';
import { HttpError } from '../http/errors.ts';
import { pageReply } from '../http/pagination.ts';
import { type AnyRoute, created, defineRoute, ok, publicBody } from '../http/route.ts';
import { createEnrollment, listEnrollments, revokeEnrollment } from './enrollments.ts';
import { redeemEnrollment } from './redeem-enrollment.ts';
import { enrollmentTriesPerMinute, triesKey } from './tries.ts';

/**
 * The address a try is counted against: the connection's peer, or with `--trust-proxy` the
 * first address of `X-Forwarded-For` that the proxy in front wrote.
 */
function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  return (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

const tag = 'Print agents: enrolment';
const itOnly = { permission: 'printing.agents.write' } as const;

/**
 * Enrolment codes: IT makes, lists and revokes them (`printing.agents.write`); an agent
 * trades one for its token (`POST /printing/enroll`, no token: the code is the credential).
 */
export const enrollmentRoutes: AnyRoute[] = [
  defineRoute({
    method: 'POST',
    path: '/printing/enrollments',
    access: itOnly,
    operationId: 'createEnrollment',
    summary: 'Make an enrolment code',
    description:
      'Extension. A short code (`K7QF-M2XD`) that print agents trade for a token of their own (`POST /printing/enroll`), `uses` times, until `expires_in` seconds have passed (default 24 h). Shown in this answer only: the server keeps its hash. `routes`: the routes the agents it enrols serve. A code enrols new agents only; with `agent_id` (an agent of the company) it re-enrols that agent alone, once, and revokes its old tokens when used.',
    tag,
    body: createEnrollmentBody,
    responses: {
      201: {
        description: 'The code, shown this once, and its record.',
        schema: dataOf(createdEnrollment),
        headers: { Location: 'URL of the list of codes.' },
      },
    },
    async handler({ body, caller, services, baseUrl }) {
      const record = await createEnrollment(
        services.storage,
        caller.companyId,
        body,
        services.clock.now(),
      );
      return created(record, baseUrl);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/printing/enrollments',
    access: itOnly,
    operationId: 'listEnrollments',
    summary: "The company's enrolment codes",
    description:
      'Extension. Newest first: each with its state (`active`, `used_up`, `expired`, `revoked`), its uses and the agents it enrolled; never the code.',
    tag,
    query: pageQuery,
    responses: { 200: { description: 'A page of codes.', schema: pageOf(enrollmentRecord) } },
    async handler({ query, caller, services, baseUrl }) {
      const { rows, total } = await listEnrollments(
        services.storage.db,
        caller.companyId,
        query,
        services.clock.now(),
      );
      return pageReply(rows, total, query, baseUrl);
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/enrollments/{id}/revoke',
    access: itOnly,
    operationId: 'revokeEnrollment',
    summary: 'Revoke an enrolment code',
    description:
      'Extension. No agent enrols with it any more; the agents it enrolled keep their tokens. Revoking twice answers the same record.',
    tag,
    params: enrollmentParams,
    responses: { 200: { description: 'The code, revoked.', schema: dataOf(enrollmentRecord) } },
    async handler({ params, caller, services }) {
      return ok(
        await revokeEnrollment(services.storage, caller.companyId, params.id, services.clock.now()),
      );
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/printing/enroll',
    access: 'public',
    operationId: 'redeemEnrollment',
    summary: 'Trade an enrolment code for an agent token',
    description: `Extension, no token. Answers a token with \`printing.agent\` bound to \`uuid\` (it acts as that agent only), shown this once. A code that is unknown, used up, expired or revoked, or that re-enrols another agent → 422 on \`code\` saying which; \`routes\` (the routes the agent will serve) that the code does not grant → 422 on \`routes\` naming what it grants, checked before the code is spent; a uuid this company already knows, with a code that enrols new agents only → 409 (nothing changed); a uuid registered to another company → 409. No refusal spends a use. A code made to re-enrol \`uuid\` revokes that agent's old tokens. ${enrollmentTriesPerMinute} tries a minute per address (429 with Retry-After).`,
    tag,
    body: redeemEnrollmentBody,
    ...publicBody,
    responses: {
      201: {
        description: "The agent's token and what it serves.",
        schema: dataOf(redeemedEnrollment),
        headers: { Location: "URL of the agent's configuration." },
      },
      429: { description: 'Too many tries from this address; see Retry-After.' },
    },
    async handler({ body, request, services, baseUrl }) {
      const tries = services.enrollmentTries;
      if (tries) {
        const address = clientAddress(request, services.config.trustProxy === true);
        const quota = await tries.take(triesKey(address));
        if (!quota.allowed) {
          throw new HttpError(
            'rate_limited',
            `Too many enrolment tries from this address; wait ${quota.resetInSeconds} s.`,
            { headers: { 'retry-after': String(quota.resetInSeconds) } },
          );
        }
      }
      const redeemed = await redeemEnrollment(services.storage, body, services.clock.now());
      // A re-enrolment revoked the agent's old tokens: this process's cache must not keep
      // them (SQLite tells it only of other processes' writes; PostgreSQL's notice is async).
      services.tokenCache?.changed();
      return created(redeemed, baseUrl.replace(/\/enroll$/, '/config'));
    },
  }),
];
