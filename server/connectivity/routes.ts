import { healthBody, meRecord } from '../../shared/connectivity.ts';
import { dataOf } from '../../shared/http.ts';
import { defineRoute, ok } from '../http/route.ts';
import { isoNow } from '../time.ts';

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
