import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config.ts';
import type { RateLimit } from '../http/rate-limit.ts';
import { openRateLimit } from '../http/shared-rate-limit.ts';

/**
 * Tries at an enrolment code a minute, per client address, counted by every instance (in
 * PostgreSQL or Redis, like the request rate limit; in the process on SQLite). Ten lets a
 * shop's PCs behind one address enrol in a few minutes and keeps guessing a code hopeless.
 */
export const enrollmentTriesPerMinute = 10;

export function openEnrollmentTries(
  config: Pick<ServerConfig, 'redisUrl' | 'rateLimitStoreTimeoutMs' | 'database'>,
  log: Logger,
): Promise<RateLimit | null> {
  return openRateLimit({ ...config, rateLimitPerMinute: enrollmentTriesPerMinute }, log);
}

/**
 * The address a try is counted against: the connection's peer, or with `--trust-proxy` the
 * first address of `X-Forwarded-For` that the proxy in front wrote.
 */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers['x-forwarded-for'];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
    if (first) return first.slice(0, 64);
  }
  return (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, '');
}

/** The key of an address's tries: apart from the tokens' counters, which are numbers. */
export const triesKey = (address: string): string => `enrollment:${address}`;
