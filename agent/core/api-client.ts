import { z } from 'zod';
import { errorBody } from '../../shared/http.ts';
import {
  type AgentConfig,
  type AgentRecord,
  agentConfig,
  agentIdHeader,
  agentRecord,
  type ClaimedJob,
  claimedJob,
  type HeartbeatBody,
  type HeartbeatResult,
  heartbeatResult,
  type JobRecord,
  jobRecord,
  type PrintRoute,
  printRouteSchema,
  type RegisterAgentBody,
} from '../../shared/printing.ts';
import { type BackoffPolicy, backoffDelay, parseRetryAfter, sleep } from './backoff.ts';
import {
  type Connections,
  ConnectTimeoutError,
  type HttpAnswer,
  httpCall,
  keptAliveConnections,
} from './http-request.ts';

/** The server answered with an error status; `code` comes from shared/errors.ts. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly errors: Record<string, string[]> | undefined;
  readonly retryAfterMs: number | null;

  constructor(
    status: number,
    code: string,
    message: string,
    errors: Record<string, string[]> | undefined = undefined,
    retryAfterMs: number | null = null,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.errors = errors;
    this.retryAfterMs = retryAfterMs;
  }
}

/** The server could not be reached, or stopped answering mid-way. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
  /** True when the request cannot have reached the server (connect failed). */
  readonly notSent: boolean;

  constructor(message: string, notSent: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.notSent = notSent;
  }
}

/** The server answered 2xx with a body that does not match the shared contract. */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
}

export interface AgentApiClientOptions {
  /** The server's base URL, e.g. `http://shop-server:8080`; `/api/v1` is added. */
  serverUrl: string;
  token: string;
  agentId: string;
  userAgent?: string;
  connectTimeoutMs?: number;
  /** Headers and body timeout of ordinary calls; long-polls add their wait to it. */
  requestTimeoutMs?: number;
  /** Attempts per call for retryable failures (network, 5xx, 429), first one included. */
  attempts?: number;
  backoff?: BackoffPolicy;
  /** The longest Retry-After honoured; a longer one is cut to this. */
  maxRetryAfterMs?: number;
  random?: () => number;
  now?: () => number;
  /** Told before each retry; never given the token. */
  onRetry?: (info: {
    method: string;
    path: string;
    attempt: number;
    delayMs: number;
    error: Error;
  }) => void;
}

interface CallOptions<T> {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  schema: z.ZodType<T> | null;
  /** Safe to send twice. Non-idempotent calls are retried only when the server surely did not act. */
  idempotent: boolean;
  signal?: AbortSignal;
  extraTimeoutMs?: number;
  /** A 204 is a valid answer (claimNextJob: no job). */
  allowNoContent?: boolean;
}

const retryableStatuses = new Set([429, 500, 502, 503, 504]);

/**
 * The agent's client of `/api/v1/printing/*`: one keep-alive connection pool, timeouts that
 * know about long-polls, retries with backoff and full jitter for transient failures,
 * honouring Retry-After, and every answer validated with the shared zod contracts.
 */
export class AgentApiClient {
  private readonly baseUrl: string;
  private readonly origin: string;
  private readonly pathPrefix: string;
  private readonly connections: Connections;
  private readonly headers: Record<string, string>;
  private readonly requestTimeoutMs: number;
  private readonly attempts: number;
  private readonly backoff: BackoffPolicy;
  private readonly maxRetryAfterMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly onRetry: NonNullable<AgentApiClientOptions['onRetry']>;

  constructor(options: AgentApiClientOptions) {
    const base = options.serverUrl.replace(/\/+$/, '');
    this.baseUrl = base.endsWith('/api/v1') ? base : `${base}/api/v1`;
    const parsed = new URL(this.baseUrl);
    this.origin = parsed.origin;
    this.pathPrefix = parsed.pathname;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.connections = keptAliveConnections(this.baseUrl, {
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      keepAliveMs: 60_000,
      // The agent talks to one server; a handful of sockets covers heartbeat, long-poll and reports.
      connections: 8,
    });
    this.headers = {
      authorization: `Bearer ${options.token}`,
      [agentIdHeader]: options.agentId,
      accept: 'application/json',
      'user-agent': options.userAgent ?? 'shopdesk-agent',
    };
    this.attempts = Math.max(1, options.attempts ?? 4);
    this.backoff = options.backoff ?? { baseMs: 500, maxMs: 30_000 };
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 5 * 60_000;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.onRetry = options.onRetry ?? (() => {});
  }

  get serverBase(): string {
    return this.baseUrl;
  }

  async register(body: RegisterAgentBody, signal?: AbortSignal): Promise<AgentRecord> {
    // Idempotent per uuid (docs/printing.md): safe to repeat.
    return this.call({
      method: 'POST',
      path: '/printing/register',
      body,
      schema: agentRecord,
      idempotent: true,
      signal,
    });
  }

  async heartbeat(body: HeartbeatBody, signal?: AbortSignal): Promise<HeartbeatResult> {
    return this.call({
      method: 'POST',
      path: '/printing/heartbeat',
      body,
      schema: heartbeatResult,
      idempotent: true,
      signal,
    });
  }

  /** A clean stop: the server shows the agent offline at once (POST /printing/offline). */
  async signOff(signal?: AbortSignal): Promise<void> {
    await this.call({
      method: 'POST',
      path: '/printing/offline',
      schema: z.unknown(),
      idempotent: true,
      signal,
      allowNoContent: true,
    });
  }

  async getConfig(signal?: AbortSignal): Promise<AgentConfig> {
    return this.call({
      method: 'GET',
      path: '/printing/config',
      schema: agentConfig,
      idempotent: true,
      signal,
    });
  }

  /** Saves the routes; the server's copy, and its routes version when it keeps one. */
  async putRoutes(
    routes: PrintRoute[],
    signal?: AbortSignal,
  ): Promise<{ routes: PrintRoute[]; routes_version?: number | undefined }> {
    const result = await this.call({
      method: 'PUT',
      path: '/printing/routes',
      body: { routes },
      schema: routesResult,
      idempotent: true,
      signal,
    });
    return result;
  }

  /**
   * Long-polls for the next job: resolves with a job claimed for this agent, or null when
   * none came within `waitSeconds`. Retrying after a lost answer is safe for at-most-once:
   * a job claimed by the lost answer is never handed out again; its lease runs out and the
   * server marks it failed (`lease_expired`) for the shop to retry.
   */
  async claimNextJob(
    waitSeconds: number,
    signal?: AbortSignal,
    routes?: readonly string[],
  ): Promise<ClaimedJob | null> {
    return this.call({
      method: 'POST',
      path: '/printing/jobs/next',
      // `routes`: only those the agent can print on now; left out, all of its routes.
      body: routes === undefined ? { wait: waitSeconds } : { wait: waitSeconds, routes },
      schema: claimedJob,
      idempotent: true,
      signal,
      extraTimeoutMs: waitSeconds * 1000,
      allowNoContent: true,
    });
  }

  async confirmJob(jobId: number, body: { printer?: string }, signal?: AbortSignal) {
    // Confirming twice is harmless (docs/printing.md).
    return this.jobCall(jobId, 'confirm', body, true, signal);
  }

  async reportJobError(
    jobId: number,
    body: { message: string; code?: string },
    signal?: AbortSignal,
  ): Promise<JobRecord> {
    // A second report of the same error is a 409 the outbox reads as "already done".
    return this.jobCall(jobId, 'error', body, true, signal);
  }

  async releaseJob(
    jobId: number,
    body: { code: string; message: string },
    signal?: AbortSignal,
  ): Promise<JobRecord> {
    // A repeat after a lost answer is a 409 the outbox reads as "already queued".
    return this.jobCall(jobId, 'release', body, true, signal);
  }

  async retryJob(jobId: number, signal?: AbortSignal): Promise<JobRecord> {
    // Same id requeued; a repeat is a 409, not a second job.
    return this.jobCall(jobId, 'retry', {}, true, signal);
  }

  async reprintJob(jobId: number, signal?: AbortSignal): Promise<JobRecord> {
    // Each reprint creates a job: never repeated unless the server surely did not act.
    return this.jobCall(jobId, 'reprint', {}, false, signal);
  }

  async getJob(jobId: number, signal?: AbortSignal): Promise<JobRecord> {
    return this.call({
      method: 'GET',
      path: `/printing/jobs/${jobIdSegment(jobId)}`,
      schema: jobRecord,
      idempotent: true,
      signal,
    });
  }

  async close(): Promise<void> {
    await this.connections.close();
  }

  private jobCall(
    jobId: number,
    action: 'confirm' | 'error' | 'release' | 'retry' | 'reprint',
    body: unknown,
    idempotent: boolean,
    signal: AbortSignal | undefined,
  ): Promise<JobRecord> {
    return this.call({
      method: 'POST',
      path: `/printing/jobs/${jobIdSegment(jobId)}/${action}`,
      body,
      schema: jobRecord,
      idempotent,
      signal,
    });
  }

  private async call<T>(options: CallOptions<T> & { allowNoContent: true }): Promise<T | null>;
  private async call<T>(options: CallOptions<T>): Promise<T>;
  private async call<T>(options: CallOptions<T>): Promise<T | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(options);
      } catch (error) {
        if (
          options.signal?.aborted ||
          attempt >= this.attempts ||
          !this.retryable(error, options)
        ) {
          throw error;
        }
        const retryAfter = error instanceof ApiError ? error.retryAfterMs : null;
        const delayMs =
          retryAfter !== null
            ? Math.min(retryAfter, this.maxRetryAfterMs)
            : backoffDelay(this.backoff, attempt - 1, this.random);
        this.onRetry({
          method: options.method,
          path: options.path,
          attempt,
          delayMs,
          error: error as Error,
        });
        await sleep(delayMs, options.signal);
      }
    }
  }

  private retryable(error: unknown, options: CallOptions<unknown>): boolean {
    if (error instanceof ApiError) {
      if (!retryableStatuses.has(error.status)) return false;
      // 429 and 503 say the server did not act; a 500 after a non-idempotent call might have.
      return options.idempotent || error.status === 429 || error.status === 503;
    }
    if (error instanceof ServerUnreachableError) return options.idempotent || error.notSent;
    return false;
  }

  private async once<T>(options: CallOptions<T>): Promise<T | null> {
    const timeout = this.requestTimeoutMs + (options.extraTimeoutMs ?? 0);
    let response: HttpAnswer;
    try {
      response = await httpCall(this.origin + this.pathPrefix + options.path, {
        method: options.method,
        headers:
          options.body === undefined
            ? this.headers
            : { ...this.headers, 'content-type': 'application/json' },
        body: options.body === undefined ? null : JSON.stringify(options.body),
        timeoutMs: timeout,
        signal: options.signal,
        connections: this.connections,
      });
    } catch (error) {
      throw this.networkError(error, options);
    }
    const text = response.body.toString('utf8');
    const status = response.status;
    if (status === 204 && options.allowNoContent) return null;
    if (status < 200 || status >= 300) {
      throw this.apiError(status, text, response.headers['retry-after']);
    }
    if (options.schema === null) return null;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new UnexpectedResponseError(
        `${options.method} ${options.path} answered ${status} with a body that is not JSON`,
      );
    }
    const parsed = (json as { data?: unknown } | null)?.data;
    const result = options.schema.safeParse(parsed);
    if (!result.success) {
      throw new UnexpectedResponseError(
        `${options.method} ${options.path} answered ${status} with a body that does not match the contract: ${result.error.issues
          .slice(0, 3)
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .join('; ')}`,
      );
    }
    return result.data;
  }

  private apiError(status: number, text: string, retryAfter: string | string[] | undefined) {
    let parsed: ReturnType<typeof errorBody.safeParse> | null = null;
    try {
      parsed = errorBody.safeParse(JSON.parse(text));
    } catch {
      parsed = null;
    }
    const retryAfterMs = parseRetryAfter(retryAfter, this.now());
    if (parsed?.success) {
      return new ApiError(
        status,
        parsed.data.code,
        parsed.data.message,
        parsed.data.errors,
        retryAfterMs,
      );
    }
    return new ApiError(
      status,
      `http_${status}`,
      `the server answered ${status}`,
      undefined,
      retryAfterMs,
    );
  }

  private networkError(error: unknown, options: CallOptions<unknown>): Error {
    if (options.signal?.aborted) return error as Error;
    const code = (error as { code?: string }).code ?? '';
    const notSent =
      error instanceof ConnectTimeoutError ||
      ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(code);
    // The message names the server but never carries headers, so never the token.
    return new ServerUnreachableError(
      `${options.method} ${this.baseUrl}${options.path} failed: ${(error as Error).message}${code ? ` (${code})` : ''}`,
      notSent,
      { cause: error },
    );
  }
}

/** PUT /printing/routes answers `{data: {routes}}` (the team's contract). */
const routesResult = z.object({
  routes: z.array(printRouteSchema),
  routes_version: z.number().int().optional(),
});

function jobIdSegment(jobId: number): string {
  if (!Number.isSafeInteger(jobId) || jobId < 1) throw new RangeError(`bad job id ${jobId}`);
  return String(jobId);
}
