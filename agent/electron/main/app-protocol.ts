import { resolve, sep } from 'node:path';

/**
 * The settings window is served from `shopdesk-app://window/…`, a privileged scheme of our own,
 * rather than file://: its responses carry the CSP header, its origin is ours alone, and a
 * page elsewhere on disk cannot pass for it.
 */
export const appScheme = 'shopdesk-app';
export const appHost = 'window';
export const appOrigin = `${appScheme}://${appHost}`;
export const windowPageUrl = `${appOrigin}/index.html`;

/** True when `url` is a page of our window (the check each IPC message's sender passes). */
export function isAppPageUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${appScheme}:` && parsed.host === appHost;
  } catch {
    return false;
  }
}

/** The file under `rendererDir` that a request asks for, or null when it points elsewhere. */
export function resolveRendererFile(rendererDir: string, requestUrl: string): string | null {
  if (!isAppPageUrl(requestUrl)) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(requestUrl).pathname);
  } catch {
    return null;
  }
  const root = resolve(rendererDir);
  const file = resolve(root, `.${pathname === '/' ? '/index.html' : pathname}`);
  return file.startsWith(root + sep) ? file : null;
}
