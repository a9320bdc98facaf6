import { z } from 'zod';
import { type ErrorCode, type ErrorEntry, errorCodes, errorRegistry } from '../../shared/errors.ts';
import { errorBody } from '../../shared/http.ts';
import type { AnyRoute } from './route.ts';

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  const cleaned = withoutSafeIntegerFloor(rest) as JsonSchema;
  return io === 'input' ? withoutNul(cleaned) : cleaned;
}

/**
 * The text rule (docs/security.md): no text the server takes holds a NUL character, at any
 * depth of a path, query or body. Stated on every free-text string of the request side
 * (`not: {pattern: "\u0000"}`); a string with a format, a pattern or a list of values
 * excludes it already. Unpaired surrogates, refused too, have no JSON Schema form.
 */
function withoutNul(node: JsonSchema): JsonSchema {
  const stack: JsonSchema[] = [node];
  while (stack.length > 0) {
    const current = stack.pop()!;
    const free =
      current.type === 'string' &&
      current.format === undefined &&
      current.pattern === undefined &&
      current.enum === undefined &&
      current.const === undefined;
    if (free && current.not === undefined) current.not = { pattern: '\\u0000' };
    for (const [key, value] of Object.entries(current)) {
      if (key === 'examples' || key === 'default' || key === 'not') continue;
      if (Array.isArray(value)) {
        for (const item of value) if (typeof item === 'object' && item !== null) stack.push(item);
      } else if (typeof value === 'object' && value !== null) {
        stack.push(value as JsonSchema);
      }
    }
  }
  return node;
}

/**
 * zod writes `.int()` as `minimum: -(2^53 - 1)`: no bound anybody means, and Swagger UI
 * shows it as the example value. Counts read better without it; ids say `minimum: 1`.
 */
function withoutSafeIntegerFloor(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutSafeIntegerFloor);
  if (typeof node !== 'object' || node === null) return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'minimum' && value === Number.MIN_SAFE_INTEGER) continue;
    // Examples are data, not schemas: left as written.
    copy[key] = key === 'examples' ? value : withoutSafeIntegerFloor(value);
  }
  return copy;
}

/**
 * The media type of a body, with the first example its schema carries (`.meta({examples})`)
 * as the one Swagger UI fills in. Read from zod's registry: its JSON Schema leaves examples
 * out of the input side of a schema that transforms (trimmed, digits-only fields).
 */
function mediaType(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const examples = z.globalRegistry.get(schema)?.examples;
  const example = Array.isArray(examples) ? examples[0] : undefined;
  return { schema: jsonSchema(schema, io), ...(example !== undefined && { example }) };
}

/** The error responses of the document, from the registry: one per status that has one. */
const errorResponses = errorCodes.flatMap((code) => {
  const entry: ErrorEntry = errorRegistry[code];
  return entry.response ? [{ code, status: entry.status, ...entry.response }] : [];
});

const ref = (status: number) => {
  const response = errorResponses.find((candidate) => candidate.status === status);
  if (!response) throw new Error(`shared/errors.ts documents no response for status ${status}`);
  return { $ref: `#/components/responses/${response.name}` };
};

/** The codes only a request with an `Idempotency-Key` can get (docs/http.md). */
const idempotencyCodes: ErrorCode[] = ['idempotency_key_in_flight', 'idempotency_key_reused'];

const errorExample = (code: ErrorCode) => ({
  summary: code,
  value: { success: false, message: errorRegistry[code].message, code },
});

/**
 * The answer of a status that, on a route taking `Idempotency-Key`, has an idempotency code
 * beside the status's own: one response naming both, with an example of each.
 */
function withIdempotencyCodes(status: number): unknown {
  const extra = idempotencyCodes.filter((code) => errorRegistry[code].status === status);
  const general = errorResponses.find((candidate) => candidate.status === status);
  if (extra.length === 0 || !general) return ref(status);
  const codes = [general.code, ...extra];
  return {
    description: [
      `\`${general.code}\`: ${general.description}`,
      ...extra.map((code) => `\`${code}\`: ${errorRegistry[code].message}`),
    ].join(' '),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(codes.map((code) => [code, errorExample(code)])),
      },
    },
  };
}

/** The error statuses a route can answer, from what it declares (see docs/http.md). */
function errorsOf(route: AnyRoute): Record<string, unknown> {
  const statuses = new Set<number>();
  // An X-Agent-Id that is missing or no uuid (400), or names no agent of the company (409).
  const agentChecked = route.agentHeader === 'required' || route.agentHeader === 'checked';
  if (route.body || route.idempotent || agentChecked || route.responses[400]) statuses.add(400);
  if (route.access !== 'public') statuses.add(401);
  if (typeof route.access === 'object') statuses.add(403);
  if (route.params || route.access !== 'public') statuses.add(404);
  if (route.responses[409] || route.idempotent || agentChecked) statuses.add(409);
  if (route.body) statuses.add(413).add(415);
  if (route.bodyTimeoutMs !== undefined) statuses.add(408);
  // Every route: a query parameter the route does not declare is refused (docs/http.md).
  statuses.add(422);
  // A public route with a limit of its own (enrolment tries per address) declares its 429.
  if (route.access !== 'public' || route.responses[429]) statuses.add(429);
  statuses.add(500);
  // The database out of reach: every route that reads it, which is every one with a token.
  if (route.access !== 'public') statuses.add(503);
  return Object.fromEntries(
    [...statuses]
      .sort((a, b) => a - b)
      .map((status) => [
        String(status),
        route.idempotent ? withIdempotencyCodes(status) : ref(status),
      ]),
  );
}

/** The `Idempotency-Key` request header of the routes that take one. */
const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first request with a key runs and its answer is stored with its write; the same key with the same payload (within 24 h by default) replays that answer byte for byte with `Idempotent-Replayed: true`, writing nothing. The same key with another payload → 422 `idempotency_key_reused`; while the first is still running → 409 `idempotency_key_in_flight`. A request that failed stores nothing. 1–255 printable ASCII characters, scoped to the company and the operation.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

/** The `X-Agent-Id` request header of the routes that read it (`agentHeader`). */
function agentIdParameter(use: NonNullable<AnyRoute['agentHeader']>): unknown {
  const descriptions = {
    required:
      "The calling print agent's uuid, as registered with `POST /printing/register` by the token's company; a token bound to one agent implies its own agent when the header is left out. Missing (with a token bound to no agent) or not a uuid → 400; not registered by the company → 409; another agent than the one a bound token belongs to → 403.",
    checked:
      "The calling print agent's uuid, when a print agent calls; may be left out. When sent: not a uuid → 400, not registered by the company → 409, another agent than the one a bound token belongs to → 403.",
    hint: "The calling print agent's uuid, when a print agent calls (what it is offered may depend on it); may be left out, and a value that is not a uuid is ignored.",
  };
  return {
    name: 'X-Agent-Id',
    in: 'header',
    required: use === 'required',
    description: descriptions[use],
    schema: { type: 'string', format: 'uuid' },
  };
}

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query'): unknown[] {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || !property.safeParse(undefined).success,
    schema: jsonSchema(property, 'input'),
  }));
}

function permissionText(route: AnyRoute): string {
  if (route.access === 'public') return 'Public: no token.';
  if (route.access === 'token') return 'Needs a valid token; no permission.';
  if (route.access === 'session') return 'Needs a console session (its cookie); no token.';
  const all = [route.access.permission, ...(route.access.alsoAccepts ?? [])];
  return `Permission: \`${all.join('` or `')}\`.`;
}

/** The OpenAPI 3.1.0 document, generated from the route table: never written by hand. */
export function buildOpenApi(routes: readonly AnyRoute[], version: string): JsonSchema {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    if (route.hidden) continue;
    tags.add(route.tag);
    const operation: Record<string, unknown> = {
      operationId: route.operationId,
      summary: route.summary,
      description: [route.description, permissionText(route)].filter(Boolean).join('\n\n'),
      tags: [route.tag],
      security: route.access === 'public' ? [] : [{ bearerAuth: [] }],
      parameters: [
        ...parametersOf(route.params, 'path'),
        ...parametersOf(route.query, 'query'),
        ...(route.idempotent ? [idempotencyKeyParameter] : []),
        ...(route.agentHeader ? [agentIdParameter(route.agentHeader)] : []),
      ],
      responses: {
        ...Object.fromEntries(
          Object.entries(route.responses).map(([status, response]) => [
            status,
            {
              description: response.description,
              ...(response.headers && {
                headers: Object.fromEntries(
                  Object.entries(response.headers).map(([name, description]) => [
                    name,
                    { description, schema: { type: 'string' } },
                  ]),
                ),
              }),
              ...(response.schema && {
                content: { 'application/json': mediaType(response.schema, 'output') },
              }),
            },
          ]),
        ),
        ...errorsOf(route),
      },
    };
    if (typeof route.access === 'object') {
      operation['x-permissions'] = [route.access.permission, ...(route.access.alsoAccepts ?? [])];
    }
    if (route.body) {
      operation.requestBody = {
        required: !route.body.safeParse(undefined).success,
        content: {
          [route.bodyType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json']:
            mediaType(route.body, 'input'),
        },
      };
    }
    const path = `/api/v1${route.path}`;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'ShopDesk Integration API',
      version,
      description:
        'Integration API V1: customers and suppliers, products, offers, stock and the print-job queue. ' +
        'Every protected operation acts for the company of its bearer token, within its permissions.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    // Relative: the server that serves this document, at whatever host and port it was
    // reached (OpenAPI 3.1 §4.8.5), so "Try it out" calls the same origin and needs no CORS.
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    tags: [...tags].map((name) => ({ name, description: `${name} operations.` })),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An integration token issued with `shopdesk token create`.',
        },
      },
      schemas: { Error: jsonSchema(errorBody, 'output') },
      responses: Object.fromEntries(
        errorResponses.map(({ name, description, code }) => [
          name,
          {
            description,
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Error' },
                example: { success: false, message: description, code },
              },
            },
          },
        ]),
      ),
    },
  };
}
