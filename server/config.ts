import { z } from 'zod';

/**
 * How the log reads: `json`, one JSON object a line, or `human`, lines for a person at a
 * terminal (server/log-format.ts).
 */
export const logFormats = ['json', 'human'] as const;
export type LogFormat = (typeof logFormats)[number];

/** A yes/no variable: `1`/`true` or `0`/`false`. */
const flag = z
  .enum(['1', 'true', '0', 'false'])
  .transform((value) => value === '1' || value === 'true')
  .optional();

/** A secret key as `SHOPDESK_SECRET_KEY` or the key file holds it: 32 bytes, base64. */
export function decodeSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) {
    throw new Error('the secret key must be 32 bytes in base64');
  }
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('the secret key must be 32 bytes in base64');
  return key;
}

function isSecretKey(text: string): boolean {
  try {
    decodeSecretKey(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Points where a test may make the server die as by `kill -9` (`SHOPDESK_TEST_FAULT`):
 * after an idempotent request's write and stored answer committed but before the answer
 * is sent, or after both were written but before the commit.
 */
export const testFaults = [
  'kill-after-idempotent-commit',
  'kill-before-idempotent-commit',
] as const;
export type TestFault = (typeof testFaults)[number];

/** The most `--pg-pool-size` takes: far past any `max_connections` one instance should use. */
export const maxPgPoolSize = 1000;

const durationMessage =
  'must be a whole number of seconds, or of minutes, hours or days with m, h or d (24h)';

/** `90`, `90s`, `15m`, `24h`, `7d` → seconds (at least 1); undefined when it is none of those. */
export function durationSeconds(text: string): number | undefined {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  const seconds = Number(match[1]) * unit;
  return seconds >= 1 && Number.isSafeInteger(seconds) ? seconds : undefined;
}

/**
 * The environment, parsed once at start-up. Nothing else reads `process.env`; command-line
 * flags override what is read here.
 */
const environmentSchema = z.object({
  SHOPDESK_DB: z.string().min(1).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  SHOPDESK_HOST: z.string().min(1).optional(),
  SHOPDESK_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHOPDESK_RATE_LIMIT: z.coerce.number().int().min(0).optional(),
  /** Redis for the rate limit shared by all instances (docs/scale-out.md). */
  SHOPDESK_REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  /** Comma-separated origins, or `*`: checked by parseCorsOrigins where it is used. */
  SHOPDESK_CORS_ORIGIN: z.string().min(1).optional(),
  SHOPDESK_MAX_CONNECTIONS: z.coerce.number().int().min(0).optional(),
  /** PostgreSQL connections the instance's one pool opens at most (docs/deploy.md). */
  SHOPDESK_PG_POOL_SIZE: z.coerce.number().int().min(1).max(maxPgPoolSize).optional(),
  /** Threads that render templates (docs/templates.md, "Limits"); default min(2, cores). */
  SHOPDESK_RENDER_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  /** The render threads' `nice` increment, 0–19 (default 19). */
  SHOPDESK_RENDER_NICE: z.coerce.number().int().min(0).max(19).optional(),
  SHOPDESK_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional(),
  /** `json` or `human`; unset: human on a terminal, JSON otherwise (server/log-format.ts). */
  SHOPDESK_LOG_FORMAT: z.enum(logFormats).optional(),
  SHOPDESK_IDEMPOTENCY_TTL: z
    .string()
    .transform((value, ctx) => {
      const seconds = durationSeconds(value);
      if (seconds === undefined) {
        ctx.addIssue({ code: 'custom', message: durationMessage });
        return z.NEVER;
      }
      return seconds;
    })
    .optional(),
  /**
   * Tests only: makes the server kill itself (SIGKILL) at one point of an idempotent
   * request, to prove what a crash there leaves behind. Never set it in production.
   */
  SHOPDESK_TEST_FAULT: z.enum(testFaults).optional(),
  /** 32 bytes in base64: seals the webhook secrets at rest (docs/webhooks.md). */
  SHOPDESK_SECRET_KEY: z
    .string()
    .refine(isSecretKey, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
    .optional(),
  /** The URL clients reach the API at (through a proxy): links are built from it. */
  SHOPDESK_PUBLIC_URL: z.string().min(1).optional(),
  /** Honour X-Forwarded-Proto/Host from the proxy in front (never without one). */
  SHOPDESK_TRUST_PROXY: flag,
  SHOPDESK_WEBHOOKS_ALLOW_HTTP: flag,
  SHOPDESK_WEBHOOKS_ALLOW_PRIVATE: flag,
});

export type Environment = z.infer<typeof environmentSchema>;

export function readEnvironment(env: NodeJS.ProcessEnv = process.env): Environment {
  const parsed = environmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`environment variable ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

export const defaultDatabaseFile = './data/shopdesk.sqlite';

/** Where the data lives: an SQLite file (embedded default) or a PostgreSQL URL. */
export type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export interface ServerConfig {
  host: string;
  port: number;
  database: DatabaseTarget;
  /** Requests a minute per token; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /**
   * Where the limit is counted when it must be shared: Redis at this URL; without it,
   * PostgreSQL on PostgreSQL and the process's memory on SQLite (docs/scale-out.md).
   */
  redisUrl?: string | undefined;
  /** How long the shared store may take before a request is counted in memory (2 s). */
  rateLimitStoreTimeoutMs?: number | undefined;
  /**
   * PostgreSQL: connections the instance's one pool opens at most, shared by the store and
   * the rate limits (one LISTEN connection comes beside it; docs/deploy.md). Unused on SQLite.
   */
  pgPoolSize: number;
  /** Origins whose browser apps may call the API (CORS); empty: off. `['*']`: any. */
  corsOrigins: readonly string[];
  logLevel: string;
  /** How log lines read: JSON, or lines for a person at a terminal (server/log-format.ts). */
  logFormat: LogFormat;
  /** How long a print-job claim lasts before it must be extended by a heartbeat. */
  leaseSeconds: number;
  /**
   * How long a queued job may wait (no agent, a printer out of paper) before the sweep expires
   * it, unless it gave its own `expires_in`; 0: no limit (docs/printing.md, "Hold limit").
   */
  holdSeconds: number;
  /**
   * After how long a job still queued is announced held (`print_job.held`, once a wait);
   * 0: never (docs/printing.md, "Hold limit").
   */
  heldNoticeSeconds: number;
  /**
   * How long a printer must have been unable to print before `printer.attention` is sent
   * (once per episode; a cover opened to change paper is no alert); 0: never
   * (docs/webhooks.md, "Printer attention").
   */
  printerAttentionSeconds: number;
  heartbeatSeconds: number;
  longPollWaitSeconds: number;
  /** The HTTP listener's limits (docs/security.md). */
  http: HttpLimits;
  /** How long an idempotency key and its stored answer are kept (docs/http.md). */
  idempotencyTtlSeconds: number;
  /** Tests only (`SHOPDESK_TEST_FAULT`): where the server kills itself; unset in use. */
  testFault?: TestFault | undefined;
  webhooks: WebhookPolicy;
  /**
   * The template render threads' number, time budget, memory and queue per company
   * (server/templates/render-pool.ts); its defaults where unset.
   */
  renders?: Partial<RenderLimits> | undefined;
  /**
   * `--public-url`: the origin (and path prefix) of links; unset, the listening address, or
   * the proxy's X-Forwarded-* with `trustProxy` (server/http/public-origin.ts).
   */
  publicUrl?: string | undefined;
  /** `--trust-proxy`: X-Forwarded-Proto/Host are the proxy's word, not a client's. */
  trustProxy?: boolean | undefined;
  /**
   * `SHOPDESK_SECRET_KEY`, base64; when absent the key file of the data folder is used, and
   * made on first start (`server/webhooks/secret-key.ts`).
   */
  secretKey?: string | undefined;
}

/** How templates are rendered: on threads, each render bounded (server/templates/render-pool.ts). */
export interface RenderLimits {
  /** Threads rendering at once: min(2, cores) by default. */
  threads: number;
  /** Milliseconds one render may take, Liquid and drawing, once its thread starts it. */
  budgetMs: number;
  /** Megabytes of JavaScript heap a render thread may use (its old generation). */
  memoryMb: number;
  /** Renders a company may have waiting for a thread (previews beyond it are refused). */
  queuedPerCompany: number;
  /**
   * How much lower than the server's the threads' priority is (`nice`, 0–19): 19 by default,
   * so a render gives way to the event loop. The test suite renders at 0 (docs/testing.md).
   */
  niceness: number;
}

/** What webhook URLs may point at (docs/webhooks.md, Safety). */
export interface WebhookPolicy {
  /** `--webhooks-allow-http`: plain `http://` URLs are accepted. */
  allowHttp: boolean;
  /**
   * `--webhooks-allow-private`: addresses in loopback, link-local and private ranges are
   * accepted (an on-premise receiver).
   */
  allowPrivate: boolean;
}

/**
 * How long, and how much, the server goes on reading a body it answered before reading it
 * (server/http/linger.ts; docs/http.md, "Answers before the body"): long enough for the client to see the answer,
 * short enough that a client trickling its body holds no connection slot for long.
 */
export interface LingerLimits {
  /** The longest pause between two pieces of the body before the connection is closed. */
  idleMs: number;
  /** The longest the whole wait may last, from the answer on, whatever the body declared. */
  totalMs: number;
  /** The most bytes read and thrown away before the connection is closed. */
  maxBytes: number;
}

/**
 * nginx's `lingering_close` has 5 s between reads and 30 s in all; ours are shorter: the
 * answer is out before the wait starts, and a client that keeps sending after it has seen
 * the answer (and the server's FIN) is not one to wait for. 64 MiB covers four times the
 * largest body any route accepts (16 MiB) plus what sits in the client's buffers.
 */
export const defaultLingerLimits: LingerLimits = {
  idleMs: 2000,
  totalMs: 10_000,
  maxBytes: 64 * 1024 * 1024,
};

export interface HttpLimits {
  /** Connections open at once; past it new ones are closed at accept. 0: no limit. */
  maxConnections: number;
  /** From a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (the answer is not counted). */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /**
   * How long and how much of a body answered before it was read is still read and thrown
   * away, so that the client sees the answer (server/http/linger.ts); the defaults if unset.
   */
  linger?: LingerLimits;
}

/**
 * Sized for an API whose clients send small headers and bodies of at most 16 MiB, and
 * whose long-polls wait up to 30 s for their answer (which no request timeout counts):
 * headers have 10 s, a whole request 60 s (16 MiB at ~2.5 Mbit/s), an idle connection 10 s.
 * A thousand connections cost ~100 MB at worst (socket buffers and parsers).
 */
export const defaultHttpLimits: HttpLimits = {
  maxConnections: 1000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 10_000,
};

export const defaultServerConfig: Omit<ServerConfig, 'database'> = {
  host: '127.0.0.1',
  port: 8080,
  rateLimitPerMinute: 1200,
  pgPoolSize: 10,
  corsOrigins: [],
  logLevel: 'info',
  logFormat: 'json',
  leaseSeconds: 120,
  holdSeconds: 24 * 3600,
  heldNoticeSeconds: 15 * 60,
  printerAttentionSeconds: 30,
  heartbeatSeconds: 15,
  longPollWaitSeconds: 25,
  http: defaultHttpLimits,
  idempotencyTtlSeconds: 24 * 3600,
  webhooks: { allowHttp: false, allowPrivate: false },
};

export function databaseTarget(
  options: { db?: string | undefined; databaseUrl?: string | undefined },
  env: Environment,
): DatabaseTarget {
  const url = options.databaseUrl ?? (options.db ? undefined : env.DATABASE_URL);
  if (url) return { kind: 'postgres', url };
  return { kind: 'sqlite', file: options.db ?? env.SHOPDESK_DB ?? defaultDatabaseFile };
}

/** The webhook policy: the serve flags, else the environment, else refused. */
export function webhookPolicyOf(
  flags: { webhooksAllowHttp?: boolean | undefined; webhooksAllowPrivate?: boolean | undefined },
  env: Environment,
): WebhookPolicy {
  return {
    allowHttp: flags.webhooksAllowHttp ?? env.SHOPDESK_WEBHOOKS_ALLOW_HTTP ?? false,
    allowPrivate: flags.webhooksAllowPrivate ?? env.SHOPDESK_WEBHOOKS_ALLOW_PRIVATE ?? false,
  };
}
