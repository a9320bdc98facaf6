import { z } from 'zod';

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
 * The environment, parsed once at start-up. Nothing else reads `process.env`; command-line
 * flags override what is read here.
 */
const environmentSchema = z.object({
  SHOPDESK_DB: z.string().min(1).optional(),
  DATABASE_URL: z.string().min(1).optional(),
  SHOPDESK_HOST: z.string().min(1).optional(),
  SHOPDESK_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHOPDESK_RATE_LIMIT: z.coerce.number().int().min(0).optional(),
  SHOPDESK_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .optional(),
  /** 32 bytes in base64: seals the webhook secrets at rest (docs/webhooks.md). */
  SHOPDESK_SECRET_KEY: z
    .string()
    .refine(isSecretKey, 'must be 32 bytes in base64 (e.g. `openssl rand -base64 32`)')
    .optional(),
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
  logLevel: string;
  /** How long a print-job claim lasts before it must be extended by a heartbeat. */
  leaseSeconds: number;
  heartbeatSeconds: number;
  longPollWaitSeconds: number;
  webhooks: WebhookPolicy;
  /**
   * `SHOPDESK_SECRET_KEY`, base64; when absent the key file of the data folder is used, and
   * made on first start (`server/webhooks/secret-key.ts`).
   */
  secretKey?: string | undefined;
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

export const defaultServerConfig: Omit<ServerConfig, 'database'> = {
  host: '127.0.0.1',
  port: 8080,
  rateLimitPerMinute: 1200,
  logLevel: 'info',
  leaseSeconds: 120,
  heartbeatSeconds: 15,
  longPollWaitSeconds: 25,
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
