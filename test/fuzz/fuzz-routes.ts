import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../server/http/route.ts';
import { apiRoutes } from '../../server/routes.ts';
import { errorRegistry } from '../../shared/errors.ts';
import { type DatabaseKind, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { expandDeepValues, mutated, nastyQueryValue, pathValue, queryString } from './mutations.ts';
import { arbitraryOf, jsonSchemaOf } from './schema-arbitrary.ts';
import { companySnapshot, type FuzzCompany, seedCompany } from './seed-companies.ts';

/**
 * Property-based tests of every route of the route table, through the real server on one
 * database (docs/security.md, fuzzing): requests built from the route's own zod contracts,
 * mutated, must never get a 5xx, every 4xx carries the JSON error body of its registry code,
 * `/health` still answers, and the neighbour company's rows do not change.
 *
 * FUZZ_RUNS (cases per route) and FUZZ_SEED (a number, or `random`) set the run. In `npm
 * test`: 200 a route and a fixed seed. `npm run fuzz` (npm names the script it runs in
 * `npm_lifecycle_event`, which works in every shell, unlike `VAR=value npm …`): 2,000 a route
 * and a random seed, which the test names print, so that a failure can be replayed with
 * FUZZ_SEED.
 */
const longRun = process.env.npm_lifecycle_event === 'fuzz';
const runs = Number(process.env.FUZZ_RUNS ?? (longRun ? 2000 : 200));
const seedSetting = process.env.FUZZ_SEED ?? (longRun ? 'random' : '20261123');
const seed = seedSetting === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(seedSetting);

/**
 * Routes slow by design get a tenth of the cases in `npm test` (all of them in `npm run
 * fuzz`): a sign-in checks a scrypt hash, ~60 ms of CPU whether or not the account exists
 * (server/console/password-hash.ts); 200 of them were a sixth of the fuzz's time.
 */
const slowByDesign = new Set(['POST /console/session']);
const runsFor = (name: string) =>
  slowByDesign.has(name) && !longRun && process.env.FUZZ_RUNS === undefined
    ? Math.ceil(runs / 10)
    : runs;

/**
 * The fuzz's host names are made up and the internet's DNS is out of reach here: every
 * name is unknown at once, as the system's resolver says after asking (~80 ms a webhook
 * URL, a fifth of the fuzz's time). Addresses written as IP literals are judged as ever.
 */
const noSuchHost = (hostname: string) =>
  Promise.reject(
    Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }),
  );

interface FuzzRequest {
  path: string;
  body: unknown;
  hasBody: boolean;
}

function requestArbitrary(
  route: AnyRoute,
  own: FuzzCompany,
  neighbour: FuzzCompany,
): fc.Arbitrary<FuzzRequest> {
  const ids = [...own.ids, ...neighbour.ids].map(String);
  const codes = [...own.codes, ...neighbour.codes].map(encodeURIComponent);
  const hints = { ids: own.ids, codes: own.codes };
  const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const params = fc.tuple(
    ...names.map((name) => {
      const property = route.params ? jsonSchemaOf(route.params).properties?.[name] : undefined;
      const valid =
        property?.enum !== undefined
          ? fc.constantFrom(...property.enum.map(String))
          : property?.type === 'integer'
            ? fc.constantFrom(...ids)
            : fc.constantFrom(...codes);
      return pathValue(valid);
    }),
  );
  const query = route.query
    ? fc.tuple(
        arbitraryOf(jsonSchemaOf(route.query), hints) as fc.Arbitrary<Record<string, unknown>>,
        fc.array(
          fc.tuple(
            // Names the route does not declare are refused before the handler (422), so
            // they come one time in five: most cases still reach the handler.
            fc.oneof(
              {
                weight: 4,
                arbitrary: fc.constantFrom(
                  ...Object.keys(jsonSchemaOf(route.query).properties ?? {}),
                ),
              },
              {
                weight: 1,
                arbitrary: fc.constantFrom('page[]', 'x', 'search[]', '%00', '__proto__'),
              },
            ),
            nastyQueryValue,
          ),
          { maxLength: 3 },
        ),
      )
    : fc.constant<[Record<string, unknown>, [string, string][]]>([{}, []]);
  const body = route.body
    ? mutated(
        arbitraryOf(jsonSchemaOf(route.body), hints).map((value) => withoutLongWait(route, value)),
      )
    : fc.constant(undefined);
  return fc.tuple(params, query, body, fc.boolean()).map(([values, [valid, raw], value, send]) => {
    let path = route.path;
    names.forEach((name, index) => {
      path = path.replace(`{${name}}`, values[index]!);
    });
    return {
      path: `${path}${queryString(valid, raw)}`,
      body: value,
      // Routes without a body now and then get one anyway.
      hasBody: route.body !== undefined || (send && route.method !== 'GET'),
    };
  });
}

/** A long-poll would hold each case for up to 30 s: the valid `wait` of the fuzz is 0. */
function withoutLongWait(route: AnyRoute, value: unknown): unknown {
  if (route.operationId !== 'claimNextPrintJob') return value;
  return { ...(value as object), wait: 0 };
}

/**
 * What is wrong with an answer, if anything: a 5xx; a 4xx whose body is not JSON of exactly
 * `success: false`, a message, a code of the registry with this status (and `errors` when
 * fields are named). Checked by hand, not with `expect`, whose bookkeeping cost more CPU
 * than the checks over the ~36,000 cases of a run; a failure names the rule it broke.
 */
function problemOf(answer: { status: number; type: string | null; text: string }): string | null {
  if (answer.status >= 500) return 'a 5xx';
  if (answer.status < 400) return null;
  if (answer.type !== 'application/json; charset=utf-8') return `content type ${answer.type}`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return 'a body that is not JSON';
  }
  const keys = Object.keys(body).sort().join(',');
  const expected = body.errors ? 'code,errors,message,success' : 'code,message,success';
  if (keys !== expected) return `error keys ${keys}, not ${expected}`;
  if (body.success !== false) return 'success is not false';
  if (typeof body.message !== 'string' || body.message.length === 0) return 'no message';
  if (knownCodes.get(String(body.code)) !== answer.status) {
    return `code ${String(body.code)} is not the registry's for this status`;
  }
  return null;
}

const knownCodes = new Map(
  Object.entries(errorRegistry).map(([code, entry]) => [code, entry.status]),
);

export function fuzzRoutesOn(kind: DatabaseKind): void {
  describe(`every route, fuzzed from its contract, on ${kind} (${runs} cases a route, seed ${seed})`, () => {
    let server: TestServer;
    let own: FuzzCompany;
    let neighbour: FuzzCompany;
    let before: Record<string, string[]>;

    beforeAll(async () => {
      server = await startTestServerOn(kind, { webhooks: { resolve: noSuchHost } });
      own = await seedCompany(server, 'OWN');
      neighbour = await seedCompany(server, 'NBR');
      before = await companySnapshot(server.app.services.storage, neighbour.companyId);
    });
    const cpuAtStart = process.cpuUsage();
    const startedAt = performance.now();
    afterAll(async () => {
      await server?.close();
      const cpu = process.cpuUsage(cpuAtStart);
      console.log(
        `fuzz on ${kind}: ${((performance.now() - startedAt) / 1000).toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU in this process`,
      );
    });

    it.each(apiRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
      '%s',
      async (name, route) => {
        const seen = new Map<number, number>();
        await fc.assert(
          fc.asyncProperty(requestArbitrary(route, own, neighbour), async (request) => {
            const answer = await send(server, route.method, request, own);
            seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
            const problem = problemOf(answer);
            // fast-check reports the request with this message, then the shrunk one.
            if (problem)
              throw new Error(`${problem}: ${answer.status} ${answer.text.slice(0, 300)}`);
          }),
          { numRuns: runsFor(name), seed, endOnFailure: true },
        );
        expect((await server.request('GET', '/health')).status).toBe(200);
        expect(await companySnapshot(server.app.services.storage, neighbour.companyId)).toEqual(
          before,
        );
        // What the cases reached, for whoever reads the run: mostly 422 means the contract
        // held them; some 2xx means valid requests got through too.
        console.log(
          `${kind} ${route.method} ${route.path}: ${[...seen]
            .sort()
            .map(([status, n]) => `${status}×${n}`)
            .join(' ')}`,
        );
      },
      Math.max(30_000, runs * 400),
    );
  });
}

/**
 * One case, through the test server's kept-alive connections (`server.send`, not `fetch`:
 * fetch opened a new connection for every request once an answer had come before its
 * body was read, a third of the fuzz's CPU in the client). The server sees the same
 * requests either way.
 */
async function send(
  server: TestServer,
  method: string,
  request: FuzzRequest,
  own: FuzzCompany,
): Promise<{ status: number; type: string | null; text: string }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${own.token}`,
    'x-agent-id': own.agentUuid,
  };
  let body: string | undefined;
  if (request.hasBody && request.body !== undefined) {
    body = expandDeepValues(JSON.stringify(request.body));
    headers['content-type'] = 'application/json';
  }
  const answer = await server.send(method, request.path, headers, body);
  return { status: answer.status, type: answer.headers.get('content-type'), text: answer.text };
}
