import type { IncomingMessage } from 'node:http';

/**
 * Where the links the server writes (`Location`, page links, `meta.path`) point: never at
 * the request's raw `Host` header, which any client sets (`Host: evil.example` would
 * otherwise come back in every link, and a cache in front would serve it to others).
 *
 * 1. `--public-url` (`SHOPDESK_PUBLIC_URL`), when set: the address clients use, through the
 *    proxy (`https://shop.example.com`, or with a path prefix the proxy strips).
 * 2. Else, with `--trust-proxy` (`SHOPDESK_TRUST_PROXY`): `X-Forwarded-Proto` and
 *    `X-Forwarded-Host` as the proxy set them (the first value of each, checked), and the
 *    listening address for what they leave out. Only behind a proxy that overwrites both.
 * 3. Else the listening address the connection came in on (its socket's local address).
 */
export interface LinkPolicy {
  publicUrl?: string | undefined;
  trustProxy?: boolean | undefined;
}

export function linkOrigin(policy: LinkPolicy, request: IncomingMessage): string {
  if (policy.publicUrl) return policy.publicUrl;
  const listening = listeningOrigin(request);
  if (!policy.trustProxy) return `http://${listening}`;
  const proto = firstHeaderValue(request.headers['x-forwarded-proto'])?.toLowerCase();
  const host = firstHeaderValue(request.headers['x-forwarded-host']);
  const scheme = proto === 'https' || proto === 'http' ? proto : 'http';
  return `${scheme}://${host && validHost.test(host) ? host : listening}`;
}

/** `host`, `host:port`, `[v6]:port`: nothing that could carry a path, a user or a space. */
export const validHost = /^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i;

export const firstHeaderValue = (header: string | string[] | undefined): string | undefined =>
  (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim() || undefined;

function listeningOrigin(request: IncomingMessage): string {
  const { localAddress, localPort } = request.socket;
  const address = (localAddress ?? '127.0.0.1').replace(/^::ffff:(?=\d+\.)/, '');
  return address.includes(':') ? `[${address}]:${localPort}` : `${address}:${localPort}`;
}

/**
 * The `--public-url` as links are built from it: an absolute http(s) URL without query,
 * fragment, user or password; its trailing slash dropped. Throws a message for the operator.
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('must be an absolute URL such as https://shop.example.com');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('must start with https:// or http://');
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new Error('must have no query, fragment, user or password');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
