import type { IncomingMessage } from 'node:http';
import { HttpError } from './errors.ts';
import { firstHeaderValue, type LinkPolicy, validHost } from './public-origin.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The CSRF check of the console's requests: a request that changes something and is
 * authorised by the session cookie (which a browser attaches whatever page sent it), or
 * that signs in, must come from a page of this server: its `Origin` header is one of this
 * server's origins, scheme, host and port alike (RFC 6454 §5), as `serverOrigins` lists
 * them. No `Origin` at all is refused too: every browser sends it on a POST, PUT, PATCH and
 * DELETE, and a program has no cookie to lose. The pipeline decides when the check applies
 * (handle-request.ts): never to a request with a bearer token, which a browser never adds
 * by itself.
 */
export function requireSameOrigin(request: IncomingMessage, links: LinkPolicy | undefined): void {
  if (safeMethods.has(request.method ?? 'GET')) return;
  const origin = request.headers.origin;
  const sent = origin && origin !== 'null' ? originOf(origin) : undefined;
  const own = serverOrigins(request, links);
  if (sent !== undefined && own.includes(sent)) return;
  const why =
    sent === undefined
      ? 'its Origin header is missing'
      : `its Origin ${sent} is not this server's address (${own.join(' or ')})`;
  const hint =
    sent !== undefined && own.some((mine) => sameHostOtherScheme(mine, sent))
      ? '; behind a proxy that speaks https, start the server with --public-url or --trust-proxy (docs/deploy.md)'
      : '';
  throw new HttpError(
    'forbidden',
    `This request must come from a page of this server: ${why}${hint}.`,
  );
}

/**
 * The origins a page of this server has: `--public-url`'s; and the address the request
 * was sent to, as the browser saw it: with `--trust-proxy` the proxy's `X-Forwarded-Proto`
 * and `X-Forwarded-Host` (docs/deploy.md), else `http://` and the `Host` header (the server
 * itself speaks plain HTTP). So a page on `http://` cannot change anything on a server that
 * is reached over `https://`, and the other way round.
 */
export function serverOrigins(request: IncomingMessage, links: LinkPolicy | undefined): string[] {
  const origins: string[] = [];
  const add = (scheme: string, host: string | undefined) => {
    if (host === undefined || !validHost.test(host)) return;
    const origin = originOf(`${scheme}://${host}`);
    if (origin !== undefined && !origins.includes(origin)) origins.push(origin);
  };
  if (links?.publicUrl) {
    const origin = originOf(links.publicUrl);
    if (origin !== undefined) origins.push(origin);
  }
  if (links?.trustProxy) {
    const proto = firstHeaderValue(request.headers['x-forwarded-proto'])?.toLowerCase();
    const scheme = proto === 'https' || proto === 'http' ? proto : 'http';
    add(scheme, firstHeaderValue(request.headers['x-forwarded-host']) ?? request.headers.host);
  } else {
    add('http', request.headers.host);
  }
  return origins;
}

/** `scheme://host[:port]`, lower case, the scheme's default port dropped; undefined if none. */
function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

const sameHostOtherScheme = (mine: string, sent: string): boolean =>
  mine.startsWith('http://') && sent === `https://${mine.slice('http://'.length)}`;
