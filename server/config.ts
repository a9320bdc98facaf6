import { z } from 'zod';

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
  /** Comma-separated origins, or `*`: checked by parseCorsOrigins where it is used. */
  SHOPDESK_CORS_ORIGIN: z.string().min(1).optional(),
  SHOPDESK_MAX_CONNECTIONS: z.coerce.number().int().min(0).optional(),
  SHOPDESK_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional(),
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
  /** Origins whose browser apps may call the API (CORS); empty: off. `['*']`: any. */
  corsOrigins: readonly string[];
  logLevel: string;
  /** How long a print-job claim lasts before it must be extended by a heartbeat. */
  leaseSeconds: number;
  heartbeatSeconds: number;
  longPollWaitSeconds: number;
  /** The HTTP listener's limits (docs/security.md). */
  http: HttpLimits;
}

export interface HttpLimits {
  /** Connections open at once; past it new ones are closed at accept. 0: no limit. */
  maxConnections: number;
  /** From a request's first byte to the end of its headers. */
  headersTimeoutMs: number;
  /** From a request's first byte to the end of its body (the answer is not counted). */
  requestTimeoutMs: number;
  /** How long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
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
  corsOrigins: [],
  logLevel: 'info',
  leaseSeconds: 120,
  heartbeatSeconds: 15,
  longPollWaitSeconds: 25,
  http: defaultHttpLimits,
};

export function databaseTarget(
  options: { db?: string | undefined; databaseUrl?: string | undefined },
  env: Environment,
): DatabaseTarget {
  const url = options.databaseUrl ?? (options.db ? undefined : env.DATABASE_URL);
  if (url) return { kind: 'postgres', url };
  return { kind: 'sqlite', file: options.db ?? env.SHOPDESK_DB ?? defaultDatabaseFile };
}
