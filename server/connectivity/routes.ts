import { healthBody, meRecord, readyBody } from '../../shared/connectivity.ts';
import { dataOf, errorBody } from '../../shared/http.ts';
import { HttpError } from '../http/errors.ts';
import { defineRoute, ok } from '../http/route.ts';
import { isoNow } from '../time.ts';
import { notReadyReason } from './readiness.ts';

/** What a probe refused with 503 is told to wait before it asks again. */
const retryAfterSeconds = '5';

const tag = 'Connectivity';

export const connectivityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    access: 'public',
    operationId: 'health',
    summary: 'Check that the API answers',
    description: 'Answers 200 when the API answers; it does not prove internal modules work.',
    tag,
    responses: { 200: { description: 'The API answers.', schema: healthBody } },
    handler: ({ services }) => ({
      status: 200,
      body: { status: 'ok', time: isoNow(services.clock.now()) },
    }),
  }),
  defineRoute({
    method: 'GET',
    path: '/health/ready',
    access: 'public',
    operationId: 'ready',
    summary: 'Check that this instance may be sent requests',
    description:
      'Readiness, for a load balancer or an orchestrator: 200 when the database answers and every migration has run; 503 `not_ready` (with `Retry-After`) when the database does not answer within 2 s, the schema is behind, or the instance is shutting down. `/health` is the liveness check.',
    tag,
    responses: {
      200: { description: 'Ready.', schema: readyBody },
      503: {
        description: 'Not ready; the message says why.',
        schema: errorBody,
        headers: { 'Retry-After': 'Seconds to wait before probing again.' },
      },
    },
    handler: async ({ services, signal }) => {
      const reason = signal.aborted
        ? 'This instance is shutting down.'
        : await notReadyReason(services.storage, services.log);
      if (reason) {
        throw new HttpError('not_ready', reason, {
          headers: { 'retry-after': retryAfterSeconds },
        });
      }
      return { status: 200, body: { status: 'ready', time: isoNow(services.clock.now()) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/me',
    access: 'token',
    operationId: 'me',
    summary: 'Identify the API client',
    description: "The token's company and permissions. Needs a valid token and no permission.",
    tag,
    responses: { 200: { description: 'The caller.', schema: dataOf(meRecord) } },
    handler: ({ caller }) =>
      ok({
        company: { id: caller.companyId, name: caller.companyName },
        token: {
          id: caller.tokenId,
          name: caller.tokenName,
          permissions: [...caller.permissions],
          expires_at: caller.expiresAt,
        },
      }),
  }),
];
