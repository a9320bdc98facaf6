/**
 * Requests a minute per token, counted in fixed one-minute windows. Kept in the process:
 * with several server instances each enforces the limit on its own share of the traffic.
 */
export class RateLimiter {
  private readonly windows = new Map<number, { startsAt: number; count: number }>();

  readonly limitPerMinute: number;
  private readonly now: () => number;

  constructor(limitPerMinute: number, now: () => number = Date.now) {
    this.limitPerMinute = limitPerMinute;
    this.now = now;
  }

  /** Counts one request; says whether it may go on and what the headers should tell. */
  take(key: number): { allowed: boolean; remaining: number; resetInSeconds: number } {
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
}
