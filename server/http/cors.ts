import type { IncomingMessage } from 'node:http';

/**
 * Cross-origin access for integrators' browser apps (Fetch standard, CORS protocol). Off
 * unless origins are configured: the docs page is served by the API itself and needs none.
 * Tokens travel in the Authorization header, never in cookies, so no credentials mode.
 */

/** Request headers a browser app may send; the preflight answers with these. */
const allowedHeaders = 'Authorization, Content-Type, X-Request-Id, X-Agent-Id';
/** Response headers a browser app may read besides the CORS-safelisted ones. */
const exposedHeaders =
  'Location, X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After, WWW-Authenticate, Allow';
/** How long a browser may reuse a preflight answer, in seconds. */
const preflightMaxAge = '600';

/**
 * `*` or a comma-separated list of origins (`https://shop.example.com`, `http://localhost:5173`).
 * Throws with a message naming the bad entry.
 */
export function parseCorsOrigins(list: string): string[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new Error('give * or at least one origin');
  for (const entry of entries) {
    if (entry === '*') continue;
    let origin: string | undefined;
    try {
      origin = new URL(entry).origin;
    } catch {}
    // An origin is scheme, host and port only: a path or a trailing slash would never match
    // what a browser sends in Origin.
    if (origin !== entry || !/^https?:/.test(entry)) {
      throw new Error(`"${entry}" is not an origin like https://shop.example.com`);
    }
  }
  return entries.includes('*') ? ['*'] : entries;
}

/** The headers every answer to this request carries, or none when its origin is not allowed. */
export function corsHeaders(
  allowed: readonly string[],
  request: IncomingMessage,
): Record<string, string> | undefined {
  if (allowed.length === 0) return undefined;
  const origin = request.headers.origin;
  if (allowed[0] === '*') {
    return { 'access-control-allow-origin': '*', 'access-control-expose-headers': exposedHeaders };
  }
  if (!origin || !allowed.includes(origin)) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': exposedHeaders,
    vary: 'Origin',
  };
}

/** Extra headers of a preflight answer (an OPTIONS request with Access-Control-Request-Method). */
export function preflightHeaders(
  allowed: readonly string[],
  request: IncomingMessage,
  methods: readonly string[],
): Record<string, string> | undefined {
  const base = corsHeaders(allowed, request);
  if (!base?.['access-control-allow-origin']) return base;
  if (!request.headers['access-control-request-method']) return base;
  return {
    ...base,
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': allowedHeaders,
    'access-control-max-age': preflightMaxAge,
  };
}
