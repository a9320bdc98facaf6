import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../server/http/openapi.ts';
import type { AnyRoute } from '../../server/http/route.ts';
import { apiRoutes } from '../../server/routes.ts';
import { arbitraryOf, jsonSchemaOf } from '../fuzz/schema-arbitrary.ts';
import { databaseKinds, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { expectError } from './error-answers.ts';
import { concretePath, label } from './route-samples.ts';

/**
 * What the OpenAPI document says a route reads from the request's headers, the route
 * enforces: the declaration that writes `X-Agent-Id` and `Idempotency-Key` into the document
 * is the one that installs their hooks (docs/internals.md, "The HTTP core"). Read from the
 * route table, so a route added later is covered without touching this file.
 */

// biome-ignore lint/suspicious/noExplicitAny: the document is read by path.
const document = buildOpenApi(apiRoutes, 'test') as any;

/** The request headers the document lists for the route's operation, by name. */
function documentedHeaders(route: AnyRoute): Map<string, { required: boolean }> {
  const operation = document.paths[`/api/v1${route.path}`]?.[route.method.toLowerCase()];
  const parameters: { name: string; in: string; required: boolean }[] = operation?.parameters ?? [];
  return new Map(parameters.filter((one) => one.in === 'header').map((one) => [one.name, one]));
}

const documented = apiRoutes.filter((route) => !route.hidden);
/** X-Agent-Id documented as required: a request without it is refused. */
const agentRequired = documented.filter(
  (route) => documentedHeaders(route).get('X-Agent-Id')?.required === true,
);
/** X-Agent-Id documented, optional, and checked when sent (a `hint` is ignored when wrong). */
const agentChecked = documented.filter(
  (route) =>
    documentedHeaders(route).get('X-Agent-Id')?.required === false && route.agentHeader !== 'hint',
);
const keyed = documented.filter((route) => documentedHeaders(route).has('Idempotency-Key'));

/**
 * A body the route's schema accepts, generated from it: the agent is checked once the body
 * has passed, so a refused body would hide what is tested here.
 */
function validBody(route: AnyRoute): unknown {
  if (!route.body) return undefined;
  const schema = route.body;
  const samples = fc.sample(arbitraryOf(jsonSchemaOf(schema)), { numRuns: 200, seed: 1 });
  const body = samples.find((sample) => schema.safeParse(sample).success);
  if (body === undefined) throw new Error(`no valid body generated for ${label(route)}`);
  return body;
}

describe('the declared headers, as the document lists them', () => {
  it('finds what it checks', () => {
    expect(agentRequired.map(label)).toContain('POST /printing/heartbeat');
    expect(agentChecked.map(label)).toContain('GET /printing/history');
    expect(keyed.map(label)).toContain('POST /printing/jobs');
    for (const route of [...agentRequired, ...agentChecked, ...keyed]) {
      // The requests below carry a token: a route only a person may call would need a session.
      expect(route.access, label(route)).not.toBe('session');
      expect(route.access, label(route)).not.toBe('public');
    }
  });
});

describe.each(databaseKinds)('on %s', (kind) => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServerOn(kind);
    token = await server.token(await server.createCompany('Headers Co'), '*');
  });
  afterAll(() => server?.close());

  it.each(agentRequired.map((route) => [label(route), route] as const))(
    '%s refuses a request without X-Agent-Id (400)',
    async (_label, route) => {
      const answer = await server.request(route.method, concretePath(route), {
        token,
        body: validBody(route),
      });
      expectError(answer, 400, 'bad_request');
      expect(answer.body.message).toBe(
        'The X-Agent-Id header is required: send the UUID the agent registered with POST /printing/register.',
      );
    },
  );

  it.each(agentChecked.map((route) => [label(route), route] as const))(
    '%s refuses an X-Agent-Id that is not a uuid (400)',
    async (_label, route) => {
      const answer = await server.request(route.method, concretePath(route), {
        token,
        body: validBody(route),
        headers: { 'x-agent-id': 'till-1' },
      });
      expectError(answer, 400, 'bad_request');
      expect(answer.body.message).toBe('The X-Agent-Id header must be a UUID.');
    },
  );

  it.each(keyed.map((route) => [label(route), route] as const))(
    '%s refuses an Idempotency-Key out of its form (400), before the body',
    async (_label, route) => {
      const answer = await server.request(route.method, concretePath(route), {
        token,
        headers: { 'idempotency-key': 'k'.repeat(256) },
      });
      expectError(answer, 400, 'bad_request');
      expect(answer.body.message).toBe(
        'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      );
    },
  );
});
