import type { Caller } from '../tokens/index.ts';

/** What one counted request may do, and what the rate-limit headers tell. */
export interface Quota {
  allowed: boolean;
  remaining: number;
  resetInSeconds: number;
}

/**
 * Requests a minute per key (a token, or a console user: `rateLimitKey`).
 * In the process (`RateLimiter`) on SQLite; shared by every instance (`shared-rate-limit.ts`)
 * on PostgreSQL or Redis.
 */
export interface RateLimit {
  readonly limitPerMinute: number;
  /** Where the counts live: `memory` (this process), `postgres` or `redis` (all instances). */
  readonly store: 'memory' | 'postgres' | 'redis';
  /** Counts one request. A shared store answers asynchronously; memory at once. */
  take(key: string): Quota | Promise<Quota>;
  close(): Promise<void>;
}

/**
 * The counter a request is charged to: its token (a console user: their own). Never a
 * header the client chooses: counted per token and `X-Agent-Id`, a token bound to no agent
 * got a fresh budget for every made-up agent id it sent (docs/http.md#rate-limit).
 */
export function rateLimitKey(caller: Pick<Caller, 'tokenId' | 'session'>): string {
  // A console user: their own budget, whichever session (tokens' counters are numbers).
  if (caller.session) return `user:${caller.session.userId}`;
  return String(caller.tokenId);
}

/**
 * Counted in fixed one-minute windows, in the process: the store of one SQLite process, and
 * the fallback of a shared store that does not answer.
 */
export class RateLimiter implements RateLimit {
  private readonly windows = new Map<string, { startsAt: number; count: number }>();

  readonly limitPerMinute: number;
  readonly store = 'memory' as const;
  private readonly now: () => number;

  constructor(limitPerMinute: number, now: () => number = Date.now) {
    this.limitPerMinute = limitPerMinute;
    this.now = now;
  }

  take(key: string): Quota {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.startsAt >= 60_000) {
      if (this.windows.size >= 100_000) this.windows.clear();
      window = { startsAt: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    const resetInSeconds = Math.max(1, Math.ceil((window.startsAt + 60_000 - now) / 1000));
    const remaining = Math.max(0, this.limitPerMinute - window.count);
    return { allowed: window.count <= this.limitPerMinute, remaining, resetInSeconds };
  }

  async close(): Promise<void> {}
}
