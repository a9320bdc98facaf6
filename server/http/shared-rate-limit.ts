import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type PgModule from 'pg';
import type { Logger } from 'pino';
import type {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import type { DatabaseTarget, ServerConfig } from '../config.ts';
import { type Quota, type RateLimit, RateLimiter } from './rate-limit.ts';

/**
 * A shared store that has not answered in this long is taken as unreachable for that
 * request (it is a local round trip of well under a millisecond when all is well).
 */
export const defaultStoreTimeoutMs = 2000;

/** The table the PostgreSQL store keeps its counters in (made by the limiter itself). */
export const rateLimitTable = 'rate_limits';

type Limiter = RateLimiterRedis | RLWrapperTimeouts;
type Flexible = typeof import('rate-limiter-flexible');

/** Loaded when a shared store is used (it costs a few hundred ms to load on a busy machine). */
const loadFlexible = async (): Promise<Flexible> => await import('rate-limiter-flexible');

/**
 * The per-key limit counted by every instance at once (docs/scale-out.md): in PostgreSQL
 * (the app's database, on the instance's one pool) or in Redis, by `rate-limiter-flexible`.
 * Fail open: when the store does not answer (an error, or nothing within 2 s) the request
 * is counted by an in-memory limiter of the same limit in this process instead, and a
 * warning is logged (at most once a minute). Clients keep working, each instance holding
 * its own share of the limit, until the store is back.
 */
export class SharedRateLimit implements RateLimit {
  readonly limitPerMinute: number;
  readonly store: 'postgres' | 'redis';
  private readonly limiter: Limiter;
  private readonly closeStore: () => Promise<void>;
  private readonly Res: typeof RateLimiterRes;

  private constructor(
    flexible: Flexible,
    store: 'postgres' | 'redis',
    limitPerMinute: number,
    limiter: Limiter,
    closeStore: () => Promise<void>,
  ) {
    this.Res = flexible.RateLimiterRes;
    this.store = store;
    this.limitPerMinute = limitPerMinute;
    this.limiter = limiter;
    this.closeStore = closeStore;
  }

  async take(key: string): Promise<Quota> {
    try {
      return quotaOf(await this.limiter.consume(key), true);
    } catch (error) {
      if (error instanceof this.Res) return quotaOf(error, false);
      // Store and insurance both failed (not expected of memory): fail open all the same.
      return { allowed: true, remaining: this.limitPerMinute, resetInSeconds: 60 };
    }
  }

  close(): Promise<void> {
    return this.closeStore();
  }

  /**
   * In PostgreSQL, on the instance's one pool (`storage.pool`, which the store's queries use
   * too: docs/deploy.md counts its connections). The pool is the storage's: closing the
   * limit leaves it open.
   */
  static async postgres(
    pool: PgModule.Pool,
    limitPerMinute: number,
    log: Logger,
    timeoutMs = defaultStoreTimeoutMs,
  ): Promise<SharedRateLimit> {
    const flexible = await loadFlexible();
    const options = {
      ...common(limitPerMinute),
      storeClient: pool,
      storeType: 'pool',
      tableName: rateLimitTable,
    };
    let store: RateLimiterPostgres;
    try {
      // The limiter makes its table (`CREATE TABLE IF NOT EXISTS`) and calls back when done.
      await new Promise<void>((resolve, reject) => {
        store = new flexible.RateLimiterPostgres(options, (error?: Error) =>
          error ? reject(error) : resolve(),
        );
      });
      await counterTableUnlogged(pool, log);
    } catch (error) {
      // Unreachable at start: fail open from the first request; the table is made by the
      // next instance that starts while the database answers.
      log.warn(
        { err: { message: (error as Error).message } },
        'rate limit: could not prepare its PostgreSQL table; counting in this process',
      );
      store = new flexible.RateLimiterPostgres({ ...options, tableCreated: true });
    }
    // A request waits for a pooled connection like any query, and a busy pool must not hold
    // it past the store's timeout: then it is counted in memory (fail open).
    const limited = new flexible.RLWrapperTimeouts({
      limiter: store!,
      timeoutMs,
      insuranceLimiter: insurance(flexible, limitPerMinute, log, 'postgres'),
    });
    return new SharedRateLimit(flexible, 'postgres', limitPerMinute, limited, async () => {});
  }

  /**
   * In Redis (`--redis-url`). Keys are named after the database (`namespaceOf`), so that
   * deployments sharing one Redis do not share counters.
   */
  static async redis(
    url: string,
    database: DatabaseTarget,
    limitPerMinute: number,
    log: Logger,
    timeoutMs = defaultStoreTimeoutMs,
  ): Promise<SharedRateLimit> {
    const flexible = await loadFlexible();
    const { Redis } = await import('ioredis');
    const client: Redis = new Redis(url, {
      // A command sent while disconnected fails at once (the limiter then counts in memory)
      // instead of waiting in a queue for a reconnection.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      lazyConnect: true,
    });
    // Errors surface as failed commands (and a warning there); reconnection is ioredis's.
    client.on('error', () => {});
    // Waited for no longer than a command would be: a Redis that takes the connection and
    // never answers would otherwise hold up start-up for ioredis's own retries (~2 s more).
    let waited: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        client.connect(),
        new Promise<never>((_, reject) => {
          waited = setTimeout(
            () => reject(new Error(`no answer within ${timeoutMs} ms`)),
            timeoutMs,
          );
        }),
      ]);
    } catch (error) {
      log.warn(
        { err: { message: (error as Error).message } },
        'rate limit: Redis is not reachable; counting in this process until it is',
      );
    } finally {
      clearTimeout(waited);
    }
    const store = new flexible.RateLimiterRedis({
      ...common(limitPerMinute),
      insuranceLimiter: insurance(flexible, limitPerMinute, log, 'redis'),
      storeClient: client,
      keyPrefix: `shopdesk:${namespaceOf(database)}:rl`,
      rejectIfRedisNotReady: true,
    });
    return new SharedRateLimit(flexible, 'redis', limitPerMinute, store, async () => {
      client.disconnect();
    });
  }
}

/** Both stores' options: the limit, and the block kept in memory. */
function common(limitPerMinute: number) {
  return {
    points: limitPerMinute,
    duration: 60,
    // A key over its limit is refused in this process until its window ends, without asking
    // the store again: a flood costs the store one write per instance and window.
    inMemoryBlockOnConsumed: limitPerMinute + 1,
  };
}

/**
 * The counters' table made `UNLOGGED`, once (a start that finds it so does nothing): its
 * writes then commit without waiting for a WAL flush, which is most of a write's cost, and
 * the table is emptied by a database crash and is not on replicas, which for counters that
 * may be lost costs a few requests more let through, once. (Before the pool was shared, the
 * limiter's own sessions ran with `synchronous_commit = off` to the same end; a setting of
 * the session would now reach the store's queries too.) Left logged, with a warning, if
 * that cannot be done: the counts are right either way.
 */
async function counterTableUnlogged(pool: PgModule.Pool, log: Logger): Promise<void> {
  try {
    const { rows } = await pool.query<{ relpersistence: string }>(
      'select relpersistence from pg_class where oid = to_regclass($1)',
      [rateLimitTable],
    );
    if (rows[0]?.relpersistence !== 'p') return;
    await pool.query(`alter table ${rateLimitTable} set unlogged`);
  } catch (error) {
    log.warn(
      { err: { message: (error as Error).message } },
      'rate limit: could not make its PostgreSQL table unlogged; its writes wait for the WAL',
    );
  }
}

/** The in-memory fallback: being used at all means the store failed, which is worth a warning. */
function insurance(
  flexible: Flexible,
  limitPerMinute: number,
  log: Logger,
  store: string,
): RateLimiterMemory {
  const Memory: typeof RateLimiterMemory = flexible.RateLimiterMemory;
  class WarningInsurance extends Memory {
    private warnedAt = Number.NEGATIVE_INFINITY;
    private readonly log: Logger;
    private readonly storeName: string;

    constructor(options: { points: number; duration: number }, log: Logger, storeName: string) {
      super(options);
      this.log = log;
      this.storeName = storeName;
    }

    override consume(key: string | number, points?: number, options?: { [key: string]: unknown }) {
      const now = Date.now();
      if (now - this.warnedAt >= 60_000) {
        this.warnedAt = now;
        this.log.warn(
          { store: this.storeName },
          'rate limit: the shared store does not answer; counting in this process (fail open) until it does',
        );
      }
      return super.consume(key, points, options);
    }
  }
  return new WarningInsurance({ points: limitPerMinute, duration: 60 }, log, store);
}

function quotaOf(result: RateLimiterRes, allowed: boolean): Quota {
  return {
    allowed,
    remaining: result.remainingPoints,
    resetInSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}

/** A short name of the database (never its password): the Redis keys' namespace. */
export function namespaceOf(database: DatabaseTarget): string {
  let identity: string;
  if (database.kind === 'sqlite') identity = `sqlite:${database.file}`;
  else {
    const url = new URL(database.url);
    identity = `postgres:${url.hostname}:${url.port}${url.pathname}`;
  }
  return createHash('sha256').update(identity).digest('hex').slice(0, 12);
}

/**
 * Several limits counted in the same store, opened together: a store that does not answer
 * holds up start-up for its timeout once, not once a limit. On PostgreSQL the first makes
 * the limiter's table before the others open (two `CREATE TABLE IF NOT EXISTS` at the same
 * moment can collide on the catalog).
 */
export async function openRateLimits<Limits extends number[]>(
  config: Parameters<typeof openRateLimit>[0],
  limitsPerMinute: [...Limits],
  log: Logger,
  pool?: PgModule.Pool,
): Promise<{ [Index in keyof Limits]: RateLimit | null }> {
  const open = (limit: number) =>
    openRateLimit({ ...config, rateLimitPerMinute: limit }, log, pool);
  type Opened = { [Index in keyof Limits]: RateLimit | null };
  const together = async (limits: number[]) => {
    const outcomes = await Promise.allSettled(limits.map(open));
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed === undefined) {
      return outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : null));
    }
    // None is left open when one could not be opened.
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') await outcome.value?.close().catch(() => {});
    }
    throw failed.reason;
  };
  if (config.redisUrl || config.database.kind !== 'postgres') {
    return (await together(limitsPerMinute)) as Opened;
  }
  const [first, ...rest] = limitsPerMinute;
  if (first === undefined) return [] as unknown as Opened;
  const made = await open(first);
  try {
    return [made, ...(await together(rest))] as Opened;
  } catch (error) {
    await made?.close().catch(() => {});
    throw error;
  }
}

/**
 * The limit as configured: none at 0; Redis when `--redis-url` is given; else shared in
 * PostgreSQL on `pool` (the storage's), or in this process on SQLite (one process serves an
 * SQLite file).
 */
export async function openRateLimit(
  config: Pick<
    ServerConfig,
    'rateLimitPerMinute' | 'redisUrl' | 'rateLimitStoreTimeoutMs' | 'database'
  >,
  log: Logger,
  pool?: PgModule.Pool,
): Promise<RateLimit | null> {
  const limit = config.rateLimitPerMinute;
  if (limit <= 0) return null;
  const timeout = config.rateLimitStoreTimeoutMs;
  if (config.redisUrl) {
    return SharedRateLimit.redis(config.redisUrl, config.database, limit, log, timeout);
  }
  if (config.database.kind === 'postgres') {
    if (!pool) throw new Error("a rate limit counted in PostgreSQL needs the storage's pool");
    return SharedRateLimit.postgres(pool, limit, log, timeout);
  }
  return new RateLimiter(limit);
}
