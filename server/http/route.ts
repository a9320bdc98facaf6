import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Permission } from '../../shared/permissions.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { Services } from '../services.ts';
import type { Db } from '../storage/db.ts';
import type { Caller } from '../tokens/index.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: nobody needs a token (`public`), any valid token (`token`), a person
 * signed in to the web console (`session`: its cookie; a token is refused), or a token (or
 * a person) holding one of the permissions listed (the first is the one docs/reference.md
 * names).
 */
export type Access =
  | 'public'
  | 'token'
  | 'session'
  | { permission: Permission; alsoAccepts?: Permission[] };

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RequestContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The token's owner; set on every route but the public ones. */
  caller: Caller;
  /**
   * Reads the request's token again, now, bypassing every cache: false when it has been
   * revoked or has expired since the request began (a long-poll checks it after waiting).
   */
  stillAuthenticated(): Promise<boolean>;
  services: Services;
  /**
   * Where the handler's queries run: the database, or, for a request with an
   * `Idempotency-Key`, the transaction that stores its answer with its write (docs/http.md).
   * Every query of the handler goes through it.
   */
  db: Db;
  request: IncomingMessage;
  /** Aborted when the client goes away or the server shuts down (long-polls listen to it). */
  signal: AbortSignal;
  /**
   * Whether `signal` is aborted, asked without making it: the signal costs listeners on the
   * response and the server, which a request that never waits should not pay.
   */
  readonly aborted: boolean;
  requestId: string;
  /** Path of the request without its query string, as Laravel's `meta.path` shows it. */
  baseUrl: string;
  log: Logger;
  /**
   * What the route's hooks found for its handler (the calling print agent), each under its
   * hook's own name and read through that hook's accessor (`callingAgent`).
   */
  readonly hooked: Record<string, unknown>;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
}

export interface RouteSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** Relative to /api/v1, with `{name}` path parameters as in docs/reference.md. */
  path: string;
  access: Access;
  operationId: string;
  summary: string;
  tag: string;
  description?: string;
  params?: P;
  query?: Q;
  body?: B;
  /** Left out of the OpenAPI document (the document itself, the docs page). */
  hidden?: boolean;
  /**
   * What the body is: JSON (the default), or an HTML form (`application/x-www-form-urlencoded`,
   * its fields as an object of strings), which Epson's printers send.
   */
  bodyType?: 'json' | 'form';
  /** Largest body accepted, in bytes (413 above it). */
  bodyLimit?: number;
  /**
   * The whole body must have arrived this many ms after the pipeline starts reading it:
   * 408, and the connection closed at once, past it. For the routes anyone may call without
   * a token, whose bodies are small: a client that trickles one holds a connection slot that
   * long, not the 60 s request timeout (docs/security.md, "Limits").
   */
  bodyTimeoutMs?: number;
  /**
   * Query parameters the pipeline refuses elsewhere as credentials in the URL (docs/http.md)
   * that this route reads as something else: Star CloudPRNT's `token`, the job token its poll
   * handed the printer, which names a claim and opens nothing. Exact names, declared in `query`.
   */
  queryNotCredentials?: readonly string[];
  /** Path parameters that hold personal data (a tax id): `***` in the log (docs/security.md). */
  personalParams?: readonly string[];
  /**
   * Takes an `Idempotency-Key` (docs/http.md): the first request with a key runs and its
   * answer is stored with its write; a retry with the same key and payload replays it.
   * Documented in the OpenAPI document and enforced by the hook it installs
   * (server/idempotency/idempotency-hook.ts).
   */
  idempotent?: boolean;
  /**
   * Reads `X-Agent-Id`, the calling print agent's uuid, as the OpenAPI document says:
   * `required` (missing or not a uuid → 400, no such agent in the company → 409), `checked`
   * (may be left out; when sent, checked as `required` is), `hint` (may be left out; a value
   * that is not a uuid is ignored; the handler reads it). `required` and `checked` install the
   * hook that checks it (server/printing/agents/agent-hook.ts).
   */
  agentHeader?: 'required' | 'checked' | 'hint';
  responses: Record<number, ResponseSpec>;
  handler: (
    context: RequestContext<z.output<P>, z.output<Q>, z.output<B>>,
  ) => Reply | Promise<Reply>;
}

// biome-ignore lint/suspicious/noExplicitAny: the table holds routes of every schema type.
export type AnyRoute = RouteSpec<any, any, any>;

/** The request as it was sent, before the schemas' defaults (an idempotency key's payload). */
export interface SentRequest {
  params: Record<string, string>;
  query: Record<string, string | string[]>;
  body: unknown;
}

/**
 * What a route's declaration installs in the pipeline (Fastify's route hooks): the steps of
 * a policy (the console's session, the calling agent, the idempotency key) that the route's
 * own fields ask for. The pipeline runs each stage of a route's hooks in the order the wiring
 * lists them (server/app.ts); every stage is optional.
 */
export interface RouteHook {
  /** The route is found, before the caller is authenticated: the headers only (CSRF). */
  onRequest?(request: IncomingMessage): void;
  /**
   * The caller of a request that sends no `Authorization`, by a credential of the hook's own
   * (the console's cookie); undefined when the request carries none.
   */
  authenticate?(request: IncomingMessage): Promise<Caller> | undefined;
  /** The caller admitted and the path read; before the query and the body: headers. */
  preValidation?(request: IncomingMessage, caller: Caller): void;
  /** Around the handler, outermost first: runs `next` (the rest, then the handler) or not. */
  preHandler?(
    context: RequestContext<unknown, unknown, unknown>,
    sent: SentRequest,
    next: () => MaybePromise<Reply>,
  ): MaybePromise<Reply>;
}

/**
 * Reads one route's declaration and returns the hook it installs there, or undefined
 * (Fastify's `onRoute`). The same fields feed the OpenAPI document (http/openapi.ts), so what
 * the document says a route checks is what the pipeline runs.
 */
export type RouteHookSource = (route: AnyRoute) => RouteHook | undefined;

/** Keeps each route's handler typed by its own schemas while the table holds them all. */
export function defineRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(
  spec: RouteSpec<P, Q, B>,
): AnyRoute {
  return spec as AnyRoute;
}

export const ok = (data: unknown): Reply => ({ status: 200, body: { data } });

export const created = (data: unknown, location: string): Reply => ({
  status: 201,
  body: { data },
  headers: { location },
});

export const noContent = (): Reply => ({ status: 204 });

export const defaultBodyLimit = 1024 * 1024;

/**
 * The body limit and deadline of the routes anyone may call without a token (sign-in,
 * setting a password, an agent's enrolment): their bodies are a few hundred bytes, and
 * 8 KiB in 5 s is ~13 kbit/s, which any client that is not stalling on purpose sends.
 */
export const publicBody = { bodyLimit: 8 * 1024, bodyTimeoutMs: 5000 } as const;

interface UpdateOperation<B extends z.ZodType> {
  operationId: string;
  summary: string;
  description?: string;
  body: B;
}

/**
 * PUT and PATCH of one record: the same path, permission, parameters and answer, two body
 * schemas (PUT validates like create; PATCH only what is sent) and one update function that
 * is told which of the two it serves.
 */
export function replaceAndPatchRoutes<
  P extends z.ZodType,
  R extends z.ZodType,
  M extends z.ZodType,
>(spec: {
  path: string;
  access: Access;
  tag: string;
  params: P;
  responses: Record<number, ResponseSpec>;
  replace: UpdateOperation<R>;
  patch: UpdateOperation<M>;
  update: (
    context: RequestContext<z.output<P>, unknown, z.output<R> | z.output<M>>,
    mode: 'replace' | 'patch',
  ) => Promise<unknown>;
}): AnyRoute[] {
  const route = (
    method: 'PUT' | 'PATCH',
    operation: UpdateOperation<z.ZodType>,
    mode: 'replace' | 'patch',
  ): AnyRoute => ({
    method,
    path: spec.path,
    access: spec.access,
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description !== undefined && { description: operation.description }),
    tag: spec.tag,
    params: spec.params,
    body: operation.body,
    responses: spec.responses,
    handler: async (context) => ok(await spec.update(context, mode)),
  });
  return [route('PUT', spec.replace, 'replace'), route('PATCH', spec.patch, 'patch')];
}
