import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';
import type { LinkPolicy } from './public-origin.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The CSRF check of the console's requests: a request that changes something and is
 * authorised by the session cookie (which a browser attaches whatever page sent it), or
 * that signs in, must come from a page of this server: its `Origin` header names the host
 * the request was sent to (`Host`, or the proxy's `X-Forwarded-Host` with `--trust-proxy`,
 * or `--public-url`'s). No `Origin` at all is refused too: every browser sends it on a
 * POST, PUT, PATCH and DELETE, and a program has no cookie to lose. Requests with a
 * bearer token are not checked: a browser never adds that header by itself.
 */
export function requireSameOrigin(request: IncomingMessage, links: LinkPolicy | undefined): void {
  if (safeMethods.has(request.method ?? 'GET')) return;
  const origin = request.headers.origin;
  let host: string | undefined;
  try {
    host = origin && origin !== 'null' ? new URL(origin).host : undefined;
  } catch {
    host = undefined;
  }
  if (host !== undefined && allowedHosts(request, links).includes(host.toLowerCase())) return;
  throw new HttpError(
    'forbidden',
    'This request must come from a page of this server (its Origin header is missing or another site).',
  );
}

function allowedHosts(request: IncomingMessage, links: LinkPolicy | undefined): string[] {
  const hosts: string[] = [];
  if (request.headers.host) hosts.push(request.headers.host.toLowerCase());
  const forwarded = request.headers['x-forwarded-host'];
  if (links?.trustProxy && typeof forwarded === 'string') {
    hosts.push(forwarded.split(',')[0]!.trim().toLowerCase());
  }
  if (links?.publicUrl) hosts.push(new URL(links.publicUrl).host.toLowerCase());
  return hosts;
}
