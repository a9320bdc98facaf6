import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';

/**
 * Where console/build.ts puts the built console: `shopdesk serve` (so `npm start`) builds it
 * when it is missing or older than its sources, `npm run console:build` by hand.
 */
export const consoleDist = fileURLToPath(new URL('../../console/dist/', import.meta.url));

/**
 * The console's Content-Security-Policy: its own script and styles only (no inline script
 * or style, nothing from another site), calls to this server only, a job's PDF shown from
 * this server in a frame, and no page may frame the console (clickjacking).
 */
export const consoleCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const securityHeaders = {
  'content-security-policy': consoleCsp,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const assetTypes: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'favicon.ico': 'image/x-icon',
};

interface Asset {
  body: Buffer;
  etag: string;
}

/**
 * Serves the console: `GET /` redirects to `/console/`; `/console/assets/app.js` and
 * `app.css` are the bundle; `/favicon.ico` its icon; every other path under `/console` is the one page (the
 * browser's address picks the view). Files are read once and kept: the bundle changes only
 * with a new build, which comes with a restart. Answers true when the path was the
 * console's, false to leave it to the API.
 */
export function consolePages(
  dir = consoleDist,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  // Kept once read; a file missing (not built yet) is looked for again on the next request.
  const cache = new Map<string, Asset>();
  const load = (name: string): Asset | null => {
    const kept = cache.get(name);
    if (kept) return kept;
    try {
      const body = readFileSync(`${dir}${name}`);
      const etag = `"${statSync(`${dir}${name}`).mtimeMs.toString(36)}-${body.length}"`;
      cache.set(name, { body, etag });
      return { body, etag };
    } catch {
      return null;
    }
  };
  return (request, response) => {
    const url = request.url ?? '/';
    // Every API request passes here first: it leaves on one prefix check, with no split.
    if (
      !url.startsWith('/console') &&
      url !== '/' &&
      !url.startsWith('/?') &&
      !url.startsWith('/favicon.ico')
    ) {
      return false;
    }
    const path = url.split('?')[0]!;
    const favicon = path === '/favicon.ico';
    if (path !== '/' && path !== '/console' && !path.startsWith('/console/') && !favicon) {
      return false;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', ...securityHeaders });
      response.end();
      return true;
    }
    if (path === '/' || path === '/console') {
      response.writeHead(302, { location: '/console/', ...securityHeaders });
      response.end();
      return true;
    }
    // The icon browsers ask for at the site's root, whatever page they are on.
    const assetName = favicon
      ? 'favicon.ico'
      : path.startsWith('/console/assets/')
        ? path.slice('/console/assets/'.length)
        : undefined;
    const name = assetName ?? 'index.html';
    const type = assetName ? assetTypes[assetName] : 'text/html; charset=utf-8';
    const asset = type ? load(name) : null;
    if (!asset || !type) {
      const missing = assetName
        ? 'Not found.'
        : 'The console is not built: run `npm run console:build` (esbuild, a dev dependency, must be installed), or restart `shopdesk serve`, which builds it.';
      response.writeHead(assetName ? 404 : 503, {
        'content-type': 'text/plain; charset=utf-8',
        ...securityHeaders,
      });
      response.end(missing);
      return true;
    }
    const headers = {
      'content-type': type,
      'cache-control': 'no-cache',
      etag: asset.etag,
      ...securityHeaders,
    };
    if (request.headers['if-none-match'] === asset.etag) {
      response.writeHead(304, headers);
      response.end();
      return true;
    }
    response.writeHead(200, { ...headers, 'content-length': asset.body.length });
    response.end(request.method === 'HEAD' ? undefined : asset.body);
    return true;
  };
}
