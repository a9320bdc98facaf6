import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseKind, startTestServerOn } from '../helpers/databases.ts';
import type { TestServer } from '../helpers/server.ts';
import { arbitraryOf, type Hints, type JsonSchema } from './schema-arbitrary.ts';
import { type FuzzCompany, seedCompany } from './seed-companies.ts';

/**
 * Contract-driven fuzz (docs/testing.md, docs/security.md): requests generated from the
 * OpenAPI document the server serves, kept only when Ajv finds them valid against the
 * document's own schemas, sent to the real server on one database with a fixed seed. What
 * must hold for each: no 5xx; the status is one the document lists for the operation; and a
 * refusal names no rule the document does not state, but for the short list below of rules
 * no schema can state (`unstatedRules`).
 *
 * zod-fast-check (arbitraries from zod schemas) supports zod 3 only, and this repository
 * uses zod 4; the document is the contract integrators read anyway, so it is generated from
 * that (fast-check) and checked with Ajv (a dev dependency for this alone).
 *
 * FUZZ_CONTRACT_RUNS (cases an operation, 5 in `npm test`, 100 in `npm run fuzz`) and
 * FUZZ_SEED set the run.
 */
const longRun = process.env.npm_lifecycle_event === 'fuzz';
const runs = Number(process.env.FUZZ_CONTRACT_RUNS ?? (longRun ? 100 : 5));
const seedSetting = process.env.FUZZ_SEED ?? (longRun ? 'random' : '20261125');
const seed = seedSetting === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(seedSetting);

/**
 * Refusals of a schema-valid request for a rule the document cannot state in a schema: it
 * depends on the data (a record that does not exist, a code already taken, the state of a
 * job or an offer) or on more than one field in a way JSON Schema has no word for. Each is
 * in the operation's description or in docs/reference.md.
 */
export const unstatedRules: { rule: string; message: RegExp }[] = [
  { rule: 'a referenced record does not exist', message: /^The selected [\w. ]+ is invalid\.$/ },
  { rule: 'a unique value is taken', message: /has already been taken\.$/ },
  {
    rule: 'a customer relationship: already there, to itself, or a cycle',
    message:
      /^(These customers are already related|A customer cannot be related to itself)\.$|cycle/,
  },
  {
    rule: 'an assembly: components only with type ASSEMBLY, not itself, no cycle',
    message: /component|assembly/i,
  },
  { rule: 'not enough stock for an offer', message: /stock/i },
  { rule: "an offer's discount above its subtotal", message: /greater than the subtotal/ },
  { rule: 'a print route without a printer of the agent', message: /route|printer/i },
  { rule: 'print options the printer cannot honour', message: /option|paper|duplex|colou?r/i },
  { rule: 'a document that is not of its content type', message: /content[_ ]type|document/i },
  { rule: 'an enrolment code unknown, used or expired', message: /enrol?ment|code/i },
  { rule: 'a webhook URL to a private or plain-http address', message: /URL|address|https/i },
  { rule: 'a duplicate in a list', message: /duplicate/i },
  { rule: 'the unpaired-surrogate half of the text rule', message: /Unicode/ },
  {
    rule: "a printer profile's width for its language (rolls 58/80/112, a label's mm, paper sizes for PDF; docs/templates.md)",
    message: /^The profile\.\w+ field must be /,
  },
  { rule: "a job's preview formats depend on how it was sent", message: /previews as / },
  {
    rule: "a template's source must be valid Liquid, its data match its data_schema, and it must render within the limits",
    message:
      /^The template has an error at line \d+, column \d+|data_schema|^The template could not be rendered /,
  },
];

// biome-ignore lint/suspicious/noExplicitAny: the document is read by path.
type Operation = any;

interface Request {
  path: string;
  query: string;
  body: unknown;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function newAjv(): Ajv {
  // multipleOfPrecision: 0.07 is a multiple of 0.01, whatever 0.07 / 0.01 is in binary.
  const ajv = new Ajv({ strict: false, allErrors: false, multipleOfPrecision: 9 });
  addFormats(ajv);
  return ajv;
}

/** A query value as a client writes it. */
const queryText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function requestArbitrary(
  path: string,
  operation: Operation,
  hints: Hints,
  validators: { body?: ValidateFunction; parameters: Map<string, ValidateFunction> },
): fc.Arbitrary<Request> {
  const parameters: { name: string; in: string; required: boolean; schema: JsonSchema }[] =
    operation.parameters ?? [];
  const pathParameters = parameters.filter((one) => one.in === 'path');
  const queryParameters = parameters.filter((one) => one.in === 'query');
  const pathValues = fc.tuple(
    ...pathParameters.map((one) => {
      if (one.schema.type === 'integer' && hints.ids.length > 0) {
        return fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...hints.ids) },
          { weight: 1, arbitrary: arbitraryOf(one.schema, hints, one.name) },
        );
      }
      return arbitraryOf(one.schema, hints, one.name);
    }),
  );
  const queryValues = fc.tuple(
    ...queryParameters.map((one) =>
      one.required
        ? arbitraryOf(one.schema, hints, one.name)
        : fc.option(arbitraryOf(one.schema, hints, one.name), { nil: undefined }),
    ),
  );
  const bodySchema = bodySchemaOf(operation);
  const body = bodySchema
    ? operation.requestBody.required
      ? arbitraryOf(bodySchema, hints)
      : fc.option(arbitraryOf(bodySchema, hints), { nil: undefined })
    : fc.constant(undefined);
  return fc
    .tuple(pathValues, queryValues, body)
    .filter(([pathValue, queryValue, bodyValue]) => {
      // Schema-valid requests only: what the generator cannot promise, Ajv decides.
      const inPath = pathParameters.every((one, index) =>
        validators.parameters.get(`path ${one.name}`)!(pathValue[index]),
      );
      const inQuery = queryParameters.every(
        (one, index) =>
          queryValue[index] === undefined ||
          validators.parameters.get(`query ${one.name}`)!(queryValue[index]),
      );
      const inBody = bodyValue === undefined || validators.body!(bodyValue);
      return inPath && inQuery && inBody;
    })
    .map(([pathValue, queryValue, bodyValue]) => {
      let filled = path;
      pathParameters.forEach((one, index) => {
        filled = filled.replace(`{${one.name}}`, encodeURIComponent(String(pathValue[index])));
      });
      const pairs = queryParameters.flatMap((one, index) =>
        queryValue[index] === undefined
          ? []
          : [`${encodeURIComponent(one.name)}=${encodeURIComponent(queryText(queryValue[index]))}`],
      );
      return { path: filled, query: pairs.length ? `?${pairs.join('&')}` : '', body: bodyValue };
    });
}

export function fuzzContractOn(kind: DatabaseKind): void {
  describe(`every operation of the OpenAPI document, schema-valid requests, on ${kind} (${runs} cases an operation, seed ${seed})`, () => {
    let server: TestServer;
    let own: FuzzCompany;
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    let doc: any;
    const ajv = newAjv();
    const seen = new Map<string, number>();

    beforeAll(async () => {
      server = await startTestServerOn(kind);
      own = await seedCompany(server, 'OWN');
      doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    });
    afterAll(async () => {
      console.log(
        `contract fuzz on ${kind}: ${[...seen]
          .sort()
          .map(([status, n]) => `${status}×${n}`)
          .join(' ')}`,
      );
      await server?.close();
    });

    it('holds for every operation', async () => {
      const paths = Object.entries(doc.paths as Record<string, Record<string, Operation>>);
      expect(paths.length).toBeGreaterThan(40);
      const failures: string[] = [];
      for (const [documentPath, methods] of paths) {
        for (const [method, operation] of Object.entries(methods)) {
          // An event stream answers a request that asks for it and never ends: it has its own
          // tests (test/console/sessions.security.test.ts), and its one refusal is declared.
          if (operation.operationId === 'streamEvents') continue;
          // The long-poll would hold each case for its wait: the fuzz claims without one.
          const path = documentPath.replace(/^\/api\/v1/, '');
          const parameters = new Map<string, ValidateFunction>();
          for (const one of operation.parameters ?? []) {
            if (one.in === 'path' || one.in === 'query') {
              parameters.set(`${one.in} ${one.name}`, ajv.compile(one.schema));
            }
          }
          const bodySchema = bodySchemaOf(operation);
          const validators = {
            parameters,
            ...(bodySchema && { body: ajv.compile(bodySchema) }),
          };
          const listed = new Set(Object.keys(operation.responses));
          try {
            await fc.assert(
              fc.asyncProperty(
                requestArbitrary(path, operation, own, validators),
                async (request) => {
                  const body =
                    operation.operationId === 'claimNextPrintJob' && request.body
                      ? { ...(request.body as object), wait: 0 }
                      : request.body;
                  const answer = await send(
                    server,
                    method.toUpperCase(),
                    request,
                    body,
                    own,
                    takesForm(operation),
                  );
                  const label = `${method.toUpperCase()} ${request.path}${request.query} ${JSON.stringify(body)?.slice(0, 300)} → ${answer.status} ${answer.text.slice(0, 300)}`;
                  seen.set(String(answer.status), (seen.get(String(answer.status)) ?? 0) + 1);
                  expect(answer.status, label).toBeLessThan(500);
                  expect(listed.has(String(answer.status)), `not in the document: ${label}`).toBe(
                    true,
                  );
                  if (answer.status === 400)
                    expect.fail(`a schema-valid request got 400: ${label}`);
                  if (answer.status === 422) {
                    const refusal = JSON.parse(answer.text);
                    const messages: string[] = Object.values(
                      (refusal.errors ?? {}) as Record<string, string[]>,
                    ).flat();
                    if (messages.length === 0) messages.push(refusal.message);
                    for (const message of messages) {
                      expect(
                        unstatedRules.some((known) => known.message.test(message)),
                        `refused for a rule the document does not state: ${message}\n${label}`,
                      ).toBe(true);
                    }
                  }
                },
              ),
              { numRuns: runs, seed, endOnFailure: true },
            );
          } catch (error) {
            // Every operation is tried; the failures are listed together at the end.
            const cause = (error as { cause?: Error }).cause ?? (error as Error);
            failures.push(
              `${operation.operationId}: ${cause.message.split('\n').slice(0, 2).join(' ')}`,
            );
          }
        }
      }
      expect(failures).toEqual([]);
    }, 600_000);
  });
}

const formType = 'application/x-www-form-urlencoded';

/** The body's schema, JSON's or (Epson's printers) a form's. */
function bodySchemaOf(operation: Operation) {
  const content = operation.requestBody?.content;
  return content?.['application/json']?.schema ?? content?.[formType]?.schema;
}

/** Whether the operation's body is a form (sent URL-encoded, as a printer sends it). */
const takesForm = (operation: Operation): boolean =>
  operation.requestBody?.content?.[formType] !== undefined;

async function send(
  server: TestServer,
  method: string,
  request: Request,
  body: unknown,
  own: FuzzCompany,
  form = false,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${own.token}`,
    'x-agent-id': own.agentUuid,
  };
  let text: string | undefined;
  if (body !== undefined && form) {
    text = new URLSearchParams(body as Record<string, string>).toString();
    headers['content-type'] = formType;
  } else if (body !== undefined) {
    text = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  try {
    const response = await fetch(`${server.api}${request.path}${request.query}`, {
      method,
      headers,
      body: text,
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    const cause = (error as { cause?: Error }).cause;
    throw new Error(
      `${method} ${request.path}${request.query} ${text?.slice(0, 300)}: ${(error as Error).message} (${cause?.message})`,
    );
  }
}
