import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pino, { type Logger } from 'pino';
import { isDomainError, Unavailable } from '../domain-errors.ts';
import type { Services } from '../services.ts';
import { isTransient } from '../storage/connection-loss.ts';
import type { Caller, TokenAuthenticator } from '../tokens/authenticate.ts';
import { loggableError, loggedPath } from './access-log.ts';
import { RequestAborted, readJsonBody } from './body.ts';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { HttpError, httpErrorOf } from './errors.ts';
import { idempotencyKeyOf, idempotentReply } from './idempotent-reply.ts';
import { type LinkPolicy, linkOrigin } from './public-origin.ts';
import { parseQuery } from './query.ts';
import { type RateLimit, rateLimitKey } from './rate-limit.ts';
import { type AnyRoute, defaultBodyLimit, type Reply, type RequestContext } from './route.ts';
import type { Router } from './router.ts';
import { parseOrThrow, refuseUnstorableText } from './validation.ts';

export interface Pipeline {
  router: Router;
  authenticator: TokenAuthenticator;
  rateLimiter: RateLimit | null;
  services: Services;
  log: Logger;
  /** Origins that browser apps may call from (`*` for any); none when absent. */
  corsOrigins?: readonly string[];
  /** Aborted when the server begins to shut down. */
  shutdown: AbortSignal;
  /** Where links point (`--public-url`, `--trust-proxy`): see public-origin.ts. */
  links?: LinkPolicy;
}

const infoLevel = pino.levels.values.info!;

const noCaller = undefined as unknown as Caller;

/** What the pipeline learnt of a request on the way, for its log line. */
interface Seen {
  caller?: Caller;
  route?: AnyRoute;
}

/** One request, from the socket to the answer: every error ends here as a JSON body. */
export async function handleRequest(
  pipeline: Pipeline,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const started = performance.now();
  const incomingId = request.headers['x-request-id'];
  const requestId =
    typeof incomingId === 'string' && /^[\w.-]{1,64}$/.test(incomingId) ? incomingId : randomUUID();
  const rawUrl = request.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const search = queryAt === -1 ? '' : rawUrl.slice(queryAt);
  const seen: Seen = {};
  let reply: Reply | undefined;
  try {
    reply = await dispatch(pipeline, request, response, pathname, search, requestId, seen);
  } catch (error) {
    if (!(error instanceof RequestAborted)) {
      const path = loggedPath(pathname, pipeline.router.prefix, seen.route);
      reply = errorReply(pipeline.log, error, requestId, request.method ?? '', path);
    }
  }
  if (reply) {
    if (pipeline.corsOrigins?.length) {
      // On errors too: a browser app must be able to read why its call failed.
      reply.headers = { ...corsHeaders(pipeline.corsOrigins, request), ...reply.headers };
    }
    if (pipeline.shutdown.aborted || leavesBodyUnread(request)) {
      // Shutting down: a kept-alive connection would sit idle until the forced close (10 s);
      // tell the client to go, so the server stops as soon as its last answer is out.
      reply.headers = { ...reply.headers, connection: 'close' };
    }
    send(response, reply, requestId, request.method === 'HEAD');
  }
  // Building the entry costs even when the level drops it: skip it at warn and above.
  // (`levelVal`, not `isLevelEnabled`, which rebuilds pino's level tables on every call.)
  if (pipeline.log.levelVal > infoLevel) return;
  // The path only, personal values masked: the query string may hold a credential, and
  // bodies may hold anything.
  const entry = {
    req_id: requestId,
    method: request.method,
    path: loggedPath(pathname, pipeline.router.prefix, seen.route),
    ms: Math.round((performance.now() - started) * 10) / 10,
    token_id: seen.caller?.tokenId,
  };
  // A client gone mid-body gets no answer: one line that says so, no status.
  if (reply) pipeline.log.info({ ...entry, status: reply.status }, 'request');
  else pipeline.log.info({ ...entry, aborted: true }, 'request aborted by the client');
}

/** Up to this much, a body left unread is read and dropped by Node to keep the connection. */
const smallUnreadBody = 64 * 1024;

/**
 * A body refused before it was read (401, 404, 413, 415, …) is not read after the answer
 * either: closing costs an honest client a reconnect, reading could cost gigabytes
 * (`Content-Length: 10000000000`). Only a small declared body is left for Node to drain.
 */
function leavesBodyUnread(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const declared = request.headers['content-length'];
  if (declared === undefined) return 'transfer-encoding' in request.headers;
  return Number(declared) > smallUnreadBody;
}

async function dispatch(
  pipeline: Pipeline,
  request: IncomingMessage,
  response: ServerResponse,
  pathname: string,
  search: string,
  requestId: string,
  seen: Seen,
): Promise<Reply> {
  const query = parseQuery(search);
  const match = pipeline.router.match(request.method ?? 'GET', pathname);
  if (match.kind === 'not_found') {
    throw new HttpError('not_found', 'The requested resource was not found.');
  }
  if (match.kind === 'method_not_allowed' && request.method === 'OPTIONS') {
    // RFC 9110 §9.3.7: what the path supports; with CORS on, this answers preflights too.
    const allow = match.allow.join(', ');
    const preflight = pipeline.corsOrigins?.length
      ? preflightHeaders(pipeline.corsOrigins, request, match.allow)
      : undefined;
    return { status: 204, headers: { allow, ...preflight } };
  }
  if (match.kind === 'method_not_allowed') {
    throw new HttpError(
      'method_not_allowed',
      `The ${request.method} method is not supported for this route. Supported methods: ${match.allow.join(', ')}.`,
      { headers: { allow: match.allow.join(', ') } },
    );
  }
  const route = match.route;
  seen.route = route;
  let caller = noCaller;
  let rateHeaders: Record<string, string> | undefined;
  if (route.access !== 'public') {
    caller = await authenticate(pipeline, request);
    seen.caller = caller;
    if (pipeline.rateLimiter) {
      const counted = rateLimitKey(caller, request.headers['x-agent-id']);
      const taken = pipeline.rateLimiter.take(counted);
      const quota = taken instanceof Promise ? await taken : taken;
      rateHeaders = {
        'x-ratelimit-limit': String(pipeline.rateLimiter.limitPerMinute),
        'x-ratelimit-remaining': String(quota.remaining),
      };
      if (!quota.allowed) {
        throw new HttpError('rate_limited', 'Too many requests; slow down and retry later.', {
          headers: { ...rateHeaders, 'retry-after': String(quota.resetInSeconds) },
        });
      }
    }
    authorize(route, caller);
  }
  const params = route.params ? parseParams(route, match.params) : {};
  const key = route.idempotent ? idempotencyKeyOf(request) : undefined;
  const queryValues = route.query ? parseOrThrow(route.query, query) : {};
  // A route without a body leaves one unread (and the answer closes the connection). What
  // was sent, before the schema's defaults, is what an idempotency key's fingerprint covers.
  const sent = route.body
    ? await readJsonBody(request, route.bodyLimit ?? defaultBodyLimit)
    : undefined;
  const body = route.body ? parseOrThrow(route.body, sent) : undefined;
  const context = new HandlerContext(pipeline, request, response, pathname, requestId, caller, {
    params,
    query: queryValues,
    body,
  });
  let reply: Reply;
  try {
    reply =
      key === undefined
        ? await route.handler(context)
        : await idempotentReply(
            pipeline.services.idempotency,
            { companyId: caller.companyId, operation: `${route.method} ${route.path}`, key },
            { params: match.params, query, body: sent },
            async () => route.handler(context),
          );
  } finally {
    context.release();
  }
  if (rateHeaders) reply.headers = { ...rateHeaders, ...reply.headers };
  return reply;
}

/**
 * What a route's handler is given. A class, not an object literal: a literal with getters
 * (the two lazy ones below) made V8 build its accessors anew for every request, in the old
 * generation: about 5 KB a request promoted, young-generation pauses of 15–25 ms instead of
 * under 1 ms, and more CPU (measured with `--trace-gc`, docs/benchmarks.md).
 */
class HandlerContext implements RequestContext<unknown, unknown, unknown> {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly caller: Caller;
  readonly services: Services;
  readonly request: IncomingMessage;
  readonly requestId: string;
  readonly log: Logger;
  readonly #pipeline: Pipeline;
  readonly #response: ServerResponse;
  readonly #pathname: string;
  #signal: AbortSignal | undefined;
  #release: (() => void) | undefined;
  #baseUrl: string | undefined;

  constructor(
    pipeline: Pipeline,
    request: IncomingMessage,
    response: ServerResponse,
    pathname: string,
    requestId: string,
    caller: Caller,
    input: { params: unknown; query: unknown; body: unknown },
  ) {
    this.#pipeline = pipeline;
    this.#response = response;
    this.#pathname = pathname;
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.caller = caller;
    this.services = pipeline.services;
    this.request = request;
    this.requestId = requestId;
    this.log = pipeline.log;
  }

  /** A field, not a method: handlers take it out of the context (`{ stillAuthenticated }`). */
  readonly stillAuthenticated = async (): Promise<boolean> => {
    const again = await this.#pipeline.authenticator.authenticate(bearerOf(this.request) ?? '', {
      fresh: true,
    });
    return again !== null && again.tokenId === this.caller.tokenId;
  };

  /** Made on first read: most handlers never look at it, and it costs listeners. */
  get signal(): AbortSignal {
    if (!this.#signal) {
      const made = abortSignalOf(this.#response, this.#pipeline.shutdown);
      this.#signal = made.signal;
      this.#release = made.release;
    }
    return this.#signal;
  }

  get aborted(): boolean {
    return this.#signal
      ? this.#signal.aborted
      : this.#pipeline.shutdown.aborted || clientGone(this.#response);
  }

  get baseUrl(): string {
    this.#baseUrl ??= `${linkOrigin(this.#pipeline.links ?? {}, this.request)}${this.#pathname}`;
    return this.#baseUrl;
  }

  /** Drops the abort signal's listeners once the handler is done. */
  release(): void {
    this.#release?.();
  }
}

/**
 * Aborts when the client goes away before its answer is written, or when the server
 * begins to shut down. `release` drops the listeners once the handler is done.
 */
function abortSignalOf(
  response: ServerResponse,
  shutdown: AbortSignal,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  const onShutdown = () => controller.abort(shutdown.reason);
  if (shutdown.aborted) onShutdown();
  else if (clientGone(response)) controller.abort();
  response.once('close', onClose);
  shutdown.addEventListener('abort', onShutdown, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      response.off('close', onClose);
      shutdown.removeEventListener('abort', onShutdown);
    },
  };
}

/** The connection closed before the answer was written out. */
const clientGone = (response: ServerResponse): boolean =>
  response.destroyed && !response.writableFinished;

const bearerOf = (request: IncomingMessage): string | undefined =>
  request.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];

/** How many Authorization headers came (`headersDistinct` would build every header's list). */
function authorizationHeaders(request: IncomingMessage): number {
  const raw = request.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') count++;
  }
  return count;
}

async function authenticate(pipeline: Pipeline, request: IncomingMessage): Promise<Caller> {
  // Node keeps the first of repeated Authorization headers; which one a proxy on the way
  // keeps is anybody's guess, so two are refused rather than one silently chosen.
  if (authorizationHeaders(request) > 1) {
    throw new HttpError('bad_request', 'Send one Authorization header, not several.');
  }
  const header = request.headers.authorization;
  const bearer = bearerOf(request);
  const caller = bearer
    ? await pipeline.authenticator.authenticate(bearer, { connection: request.socket })
    : null;
  if (!caller) {
    const message = header
      ? 'The token is invalid, expired or revoked.'
      : 'Authentication required: send Authorization: Bearer <token>.';
    throw new HttpError('unauthenticated', message, {
      headers: {
        'www-authenticate': header
          ? 'Bearer realm="shopdesk", error="invalid_token"'
          : 'Bearer realm="shopdesk"',
      },
    });
  }
  return caller;
}

function authorize(route: AnyRoute, caller: Caller): void {
  if (route.access === 'public' || route.access === 'token') return;
  if (caller.permissions.has(route.access.permission)) return;
  const accepted = [route.access.permission, ...(route.access.alsoAccepts ?? [])];
  if (accepted.some((permission) => caller.permissions.has(permission))) return;
  throw new HttpError(
    'forbidden',
    `This token lacks the permission ${accepted.join(' or ')} that this route requires.`,
  );
}

function parseParams(route: AnyRoute, raw: Record<string, string>): unknown {
  // The text rule first: a path value with a NUL is refused (422) as a body field would be,
  // whatever the parameter's own shape.
  refuseUnstorableText(raw);
  const result = route.params!.safeParse(raw);
  // A path that names no record of the right shape names no record: 404, as for an unknown id.
  if (!result.success) throw new HttpError('not_found', 'Record not found.');
  return result.data;
}

function errorReply(
  log: Logger,
  error: unknown,
  requestId: string,
  method: string,
  path: string,
): Reply {
  // The database out of reach (or a kept plan refused after a migration) is no fault of the
  // server's code: 503, and a warning (one line, no stack) so that an outage shows in the
  // log without flooding it with traces.
  const lost = isTransient(error);
  if (lost) {
    const err = (error as Error).message;
    log.warn({ req_id: requestId, method, path, err }, 'database unavailable');
  }
  const domain = lost ? new Unavailable({ cause: error }) : error;
  const known =
    domain instanceof HttpError ? domain : isDomainError(domain) ? httpErrorOf(domain) : undefined;
  if (known) return { status: known.status, body: known.toBody(), headers: known.headers };
  // Unexpected: the details go to the log for IT, a generic message to the client.
  log.error({ req_id: requestId, method, path, err: loggableError(error) }, 'unexpected error');
  const internal = new HttpError('internal', `Server error. Quote request id ${requestId}.`);
  return { status: internal.status, body: internal.toBody() };
}

function send(response: ServerResponse, reply: Reply, requestId: string, headOnly: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const headers: Record<string, string | number> = { 'x-request-id': requestId, ...reply.headers };
  if (reply.body === undefined || reply.status === 204) {
    response.writeHead(reply.status, headers);
    response.end();
    return;
  }
  const raw = typeof reply.body === 'string' || Buffer.isBuffer(reply.body);
  const text = raw ? (reply.body as string | Buffer) : JSON.stringify(reply.body);
  headers['content-type'] ??= 'application/json; charset=utf-8';
  headers['content-length'] = Buffer.byteLength(text);
  response.writeHead(reply.status, headers);
  response.end(headOnly ? undefined : text);
}
