import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pino, { type Logger } from 'pino';
import type { LingerLimits } from '../config.ts';
import { isDomainError, Unavailable } from '../domain-errors.ts';
import { andThen, type MaybePromise } from '../maybe-promise.ts';
import { isTransient } from '../storage/connection-loss.ts';
import { bearerOf, type Caller } from '../tokens/index.ts';
import { loggableError, loggedPath } from './access-log.ts';
import { BodyTimedOut, RequestAborted, readFormBody, readJsonBody } from './body.ts';
import { corsHeaders, preflightHeaders } from './cors.ts';
import { HttpError, httpErrorOf } from './errors.ts';
import { type ContextSources, HandlerContext } from './handler-context.ts';
import {
  bodyUnread,
  type EndAnswer,
  endAnswerNow,
  largeOrUnknown,
  lingerOnUnreadBody,
} from './linger.ts';
import { parsePathParams } from './path-params.ts';
import { parseQuery, parseRouteQuery } from './query.ts';
import { type RateLimit, rateLimitKey } from './rate-limit.ts';
import {
  type AnyRoute,
  defaultBodyLimit,
  type Reply,
  type RequestContext,
  type RouteHook,
  type SentRequest,
} from './route.ts';
import type { Router } from './router.ts';
import { parseOrThrow } from './validation.ts';

export interface Pipeline extends ContextSources {
  router: Router;
  rateLimiter: RateLimit | null;
  /** Origins that browser apps may call from (`*` for any); none when absent. */
  corsOrigins?: readonly string[];
  /** How long a body answered before it was read is still read (server/http/linger.ts). */
  linger?: LingerLimits;
  /** Answers what is not the API (the console's pages, `/`): true when it did. */
  pages?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

const infoLevel = pino.levels.values.info!;

const noCaller = undefined as unknown as Caller;

const noHooks: readonly RouteHook[] = [];

/**
 * What the pipeline knows of one request on its way through: where it came and what was
 * learnt (the route, the caller) for the error reply and the log line. A class, so that
 * each request's steps share one object of one shape.
 */
class Exchange {
  readonly pipeline: Pipeline;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly requestId: string;
  readonly pathname: string;
  readonly search: string;
  readonly started: number;
  route: AnyRoute | undefined;
  /** What the route's declaration installed (router.ts), run stage by stage. */
  hooks: readonly RouteHook[] = noHooks;
  caller: Caller | undefined;
  /**
   * The client sent `Expect: 100-continue` and waits for `100 Continue` before it sends the
   * body; sent only once the request has passed every check that comes before the body.
   */
  awaitsContinue: boolean;

  constructor(pipeline: Pipeline, request: IncomingMessage, response: ServerResponse) {
    this.pipeline = pipeline;
    this.request = request;
    this.response = response;
    const expect = request.headers.expect;
    this.awaitsContinue = expect !== undefined && expect.toLowerCase() === '100-continue';
    // The clock only for the log line, which warn and above never write.
    this.started = pipeline.log.levelVal > infoLevel ? 0 : performance.now();
    const incomingId = request.headers['x-request-id'];
    this.requestId =
      typeof incomingId === 'string' && /^[\w.-]{1,64}$/.test(incomingId)
        ? incomingId
        : randomUUID();
    const rawUrl = request.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    this.pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    this.search = queryAt === -1 ? '' : rawUrl.slice(queryAt);
  }
}

/**
 * One request, from the socket to the answer: every error ends here as a JSON body.
 *
 * Synchronous as far as it can go: each step that has its answer at once (a route, a
 * cached token, a handler reading SQLite) hands it on at once, and a request whose steps
 * all do is answered in the turn it came in. A step that must wait returns a promise, and
 * the rest follows it (`andThen`). Measured on the read: ~10 promise hops a request cost
 * several µs of CPU (`bench/read-against.ts` weighs such a change).
 */
export function handleRequest(
  pipeline: Pipeline,
  request: IncomingMessage,
  response: ServerResponse,
): void {
  if (pipeline.pages?.(request, response)) return;
  const exchange = new Exchange(pipeline, request, response);
  let reply: MaybePromise<Reply>;
  try {
    reply = dispatch(exchange);
  } catch (error) {
    finish(exchange, error, true);
    return;
  }
  if (reply instanceof Promise) {
    reply.then(
      (answer) => finish(exchange, answer, false),
      (error: unknown) => finish(exchange, error, true),
    );
  } else {
    finish(exchange, reply, false);
  }
}

/** Sends the answer (or the error's), then writes the request's log line. */
function finish(exchange: Exchange, outcome: unknown, failed: boolean): void {
  const { pipeline, request, response, requestId } = exchange;
  let reply: Reply | undefined;
  if (!failed) reply = outcome as Reply;
  else if (!(outcome instanceof RequestAborted)) {
    const path = loggedPath(exchange.pathname, pipeline.router.prefix, exchange.route);
    reply = errorReply(pipeline.log, outcome, requestId, request.method ?? '', path);
  }
  if (reply) {
    if (pipeline.corsOrigins?.length) {
      // On errors too: a browser app must be able to read why its call failed.
      reply.headers = { ...corsHeaders(pipeline.corsOrigins, request), ...reply.headers };
    }
    const unread = bodyUnread(request);
    // A body that missed its deadline is not waited for any longer: the 408 closes at once.
    const cut = outcome instanceof BodyTimedOut;
    // Shutting down: a kept-alive connection would sit idle until the forced close (10 s);
    // tell the client to go, so the server stops as soon as its last answer is out. A body
    // left unread (below) closes the connection too, but for a small one that has a chance
    // to arrive whole; and so does a body the client holds back for a 100 Continue that
    // never came, since the client may send it or not (RFC 9110 §10.1.1).
    const closing =
      cut ||
      pipeline.shutdown.aborted ||
      (unread && (exchange.awaitsContinue || largeOrUnknown(request)));
    if (closing) reply.headers = { ...reply.headers, connection: 'close' };
    const end = unread && !cut ? lingerOnUnreadBody(request, closing, pipeline.linger) : undefined;
    send(response, reply, requestId, request.method === 'HEAD', end);
  }
  // Building the entry costs even when the level drops it: skip it at warn and above.
  // (`levelVal`, not `isLevelEnabled`, which rebuilds pino's level tables on every call.)
  if (pipeline.log.levelVal > infoLevel) return;
  // The path only, personal values masked: the query string may hold a credential, and
  // bodies may hold anything.
  const entry = {
    req_id: requestId,
    method: request.method,
    path: loggedPath(exchange.pathname, pipeline.router.prefix, exchange.route),
    ms: Math.round((performance.now() - exchange.started) * 10) / 10,
    token_id: exchange.caller?.tokenId,
  };
  // A client gone mid-body gets no answer: one line that says so, no status.
  if (reply) pipeline.log.info({ ...entry, status: reply.status }, 'request');
  else pipeline.log.info({ ...entry, aborted: true }, 'request aborted by the client');
}

/** The route, then its caller (token, rate limit): the first steps, for every request. */
function dispatch(exchange: Exchange): MaybePromise<Reply> {
  const { pipeline, request } = exchange;
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400 (Node's own is a bare one).
  if (request.headers.host === undefined && request.httpVersion === '1.1') {
    throw new HttpError('bad_request', 'The Host header is required (RFC 9112 §3.2).');
  }
  const match = pipeline.router.match(request.method ?? 'GET', exchange.pathname);
  // Before the route answers, even 404: a credential in the URL is refused (400) wherever it
  // was sent, but for a name the route found declares is none of its (CloudPRNT's job token).
  const query = parseQuery(
    exchange.search,
    match.kind === 'found' ? match.route.queryNotCredentials : undefined,
  );
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
  exchange.route = route;
  const hooks = match.hooks;
  exchange.hooks = hooks;
  // Before the caller: the checks on headers alone (the console's CSRF rule).
  for (const hook of hooks) hook.onRequest?.(request);
  if (route.access === 'public') return run(exchange, match.params, query, noCaller, undefined);
  return andThen(authenticate(pipeline, request, hooks), (caller) => {
    exchange.caller = caller;
    const limiter = pipeline.rateLimiter;
    if (!limiter) return run(exchange, match.params, query, caller, undefined);
    return andThen(limiter.take(rateLimitKey(caller)), (quota) => {
      const rateHeaders = {
        'x-ratelimit-limit': String(limiter.limitPerMinute),
        'x-ratelimit-remaining': String(quota.remaining),
      };
      if (!quota.allowed) {
        throw new HttpError('rate_limited', 'Too many requests; slow down and retry later.', {
          headers: { ...rateHeaders, 'retry-after': String(quota.resetInSeconds) },
        });
      }
      return run(exchange, match.params, query, caller, rateHeaders);
    });
  });
}

/** The admitted request: permission, path, query and body checked, then the handler. */
function run(
  exchange: Exchange,
  rawParams: Record<string, string>,
  query: Record<string, string | string[]>,
  caller: Caller,
  rateHeaders: Record<string, string> | undefined,
): MaybePromise<Reply> {
  const { request, hooks } = exchange;
  const route = exchange.route!;
  authorize(route, caller);
  const params = route.params ? parsePathParams(route, rawParams) : {};
  // Headers the route's hooks read are checked before the query and the body.
  for (const hook of hooks) hook.preValidation?.(request, caller);
  const queryValues = parseRouteQuery(route.query, query);
  const answer = (sent: unknown): MaybePromise<Reply> => {
    const body = route.body ? parseOrThrow(route.body, sent) : undefined;
    const context = new HandlerContext(exchange, caller, { params, query: queryValues, body });
    let reply: MaybePromise<Reply>;
    try {
      reply = hooks.some(hasPreHandler)
        ? aroundHandler(route, hooks, context, { params: rawParams, query, body: sent })
        : route.handler(context);
    } catch (error) {
      context.release();
      throw error;
    }
    const done = (made: Reply): Reply => {
      context.release();
      if (rateHeaders) made.headers = { ...rateHeaders, ...made.headers };
      return made;
    };
    if (!(reply instanceof Promise)) return done(reply);
    return reply.then(done, (error: unknown) => {
      context.release();
      throw error;
    });
  };
  // A route without a body leaves one unread (and the answer closes the connection). What
  // was sent, before the schema's defaults, is what an idempotency key's fingerprint covers.
  if (!route.body) return answer(undefined);
  const sendContinue = exchange.awaitsContinue
    ? () => {
        exchange.awaitsContinue = false;
        exchange.response.writeContinue();
      }
    : undefined;
  const limit = route.bodyLimit ?? defaultBodyLimit;
  const read = route.bodyType === 'form' ? readFormBody : readJsonBody;
  return read(request, limit, sendContinue, route.bodyTimeoutMs).then(answer);
}

const hasPreHandler = (hook: RouteHook): boolean => hook.preHandler !== undefined;

/**
 * The handler inside the route's `preHandler` hooks, the first outermost: each runs the rest
 * through `next`, or answers without it.
 */
function aroundHandler(
  route: AnyRoute,
  hooks: readonly RouteHook[],
  context: RequestContext<unknown, unknown, unknown>,
  sent: SentRequest,
): MaybePromise<Reply> {
  const from = (index: number): MaybePromise<Reply> => {
    for (let at = index; at < hooks.length; at++) {
      const preHandler = hooks[at]!.preHandler;
      if (preHandler) return preHandler(context, sent, () => from(at + 1));
    }
    return route.handler(context);
  };
  return from(0);
}

/** How many Authorization headers came (`headersDistinct` would build every header's list). */
function authorizationHeaders(request: IncomingMessage): number {
  const raw = request.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') count++;
  }
  return count;
}

function authenticate(
  pipeline: Pipeline,
  request: IncomingMessage,
  hooks: readonly RouteHook[],
): MaybePromise<Caller> {
  // Node keeps the first of repeated Authorization headers; which one a proxy on the way
  // keeps is anybody's guess, so two are refused rather than one silently chosen.
  if (authorizationHeaders(request) > 1) {
    throw new HttpError('bad_request', 'Send one Authorization header, not several.');
  }
  const bearer = bearerOf(request);
  if (!bearer) {
    // An Authorization header that holds no bearer token (`Basic …`, `Bearer` alone, empty)
    // is refused, never passed over for another credential (the console's cookie): a browser
    // sends a proxy's Basic password by itself, so it says nothing of the page that made the
    // request.
    if (request.headers.authorization !== undefined) return refuseCaller(request);
    // No Authorization: a credential a hook of the route reads (a console session's cookie).
    for (const hook of hooks) {
      const caller = hook.authenticate?.(request);
      if (caller !== undefined) return caller;
    }
    return refuseCaller(request);
  }
  return andThen(
    pipeline.authenticator.authenticate(bearer, { connection: request.socket }),
    (caller) => caller ?? refuseCaller(request),
  );
}

function refuseCaller(request: IncomingMessage): never {
  const header = request.headers.authorization;
  const message =
    header === undefined
      ? 'Authentication required: send Authorization: Bearer <token>.'
      : bearerOf(request) === undefined
        ? 'The Authorization header holds no bearer token: send Authorization: Bearer <token>. A proxy in front that asks for a password must not pass its Authorization header on to ShopDesk (docs/deploy.md).'
        : 'The token is invalid, expired or revoked.';
  throw new HttpError('unauthenticated', message, {
    headers: {
      'www-authenticate':
        header !== undefined
          ? 'Bearer realm="shopdesk", error="invalid_token"'
          : 'Bearer realm="shopdesk"',
    },
  });
}

function authorize(route: AnyRoute, caller: Caller): void {
  if (route.access === 'public' || route.access === 'token') return;
  if (route.access === 'session') {
    if (caller.session) return;
    throw new HttpError('forbidden', 'This route is for people signed in to the console.');
  }
  if (caller.permissions.has(route.access.permission)) return;
  const accepted = [route.access.permission, ...(route.access.alsoAccepts ?? [])];
  if (accepted.some((permission) => caller.permissions.has(permission))) return;
  throw new HttpError(
    'forbidden',
    `This token lacks the permission ${accepted.join(' or ')} that this route requires.`,
  );
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

/** `end`: how the answer ends (a body left unread: once it is read, linger.ts). */
function send(
  response: ServerResponse,
  reply: Reply,
  requestId: string,
  headOnly: boolean,
  end: EndAnswer = endAnswerNow,
): void {
  if (response.headersSent || response.destroyed) return;
  const headers: Record<string, string | number> = { 'x-request-id': requestId, ...reply.headers };
  if (reply.body === undefined || reply.status === 204) {
    response.writeHead(reply.status, headers);
    end(response);
    return;
  }
  if (reply.body instanceof Readable) {
    // A large body (an agent build) goes as it is read, never whole in memory; the route
    // gives its length.
    response.writeHead(reply.status, headers);
    if (headOnly) {
      reply.body.destroy();
      end(response);
    } else if (end === endAnswerNow) pipeline(reply.body, response).catch(() => response.destroy());
    else
      reply.body
        .on('error', () => response.destroy())
        .on('end', () => end(response))
        .pipe(response, { end: false });
    return;
  }
  const raw = typeof reply.body === 'string' || Buffer.isBuffer(reply.body);
  const text = raw ? (reply.body as string | Buffer) : JSON.stringify(reply.body);
  headers['content-type'] ??= 'application/json; charset=utf-8';
  headers['content-length'] = Buffer.byteLength(text);
  response.writeHead(reply.status, headers);
  end(response, headOnly ? undefined : text);
}
