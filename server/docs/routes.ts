import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { HttpError } from '../http/errors.ts';
import { buildOpenApi } from '../http/openapi.ts';
import { type AnyRoute, defineRoute, type Reply } from '../http/route.ts';

const require = createRequire(import.meta.url);
// The package's main module evaluates the whole 1.4 MB viewer bundle in Node (hundreds of
// milliseconds on every start, CLI commands included); only its folder is needed here, the
// folder of that main module, found without running it.
const swaggerUiDir = dirname(require.resolve('swagger-ui-dist'));
const { version } = require('../../package.json') as { version: string };

/** Files of the viewer, served from node_modules: the docs page needs no CDN. */
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ShopDesk Integration API</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="icon" href="docs/favicon-32x32.png">
</head>
<body>
<div id="docs"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>`;

const init = `window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#docs', deepLinking: true });`;

/** `GET /api/v1` itself: what the server prints at start, so it answers with where to go. */
function indexRoute(path: string): AnyRoute {
  return defineRoute({
    method: 'GET',
    path,
    access: 'public',
    hidden: true,
    operationId: path ? 'indexSlash' : 'index',
    summary: 'Links to the documentation',
    tag: 'Documentation',
    responses: { 200: { description: 'The links.' } },
    handler: ({ baseUrl }) => {
      const base = baseUrl.replace(/\/$/, '');
      return {
        status: 200,
        body: {
          data: {
            name: 'ShopDesk Integration API',
            version,
            links: {
              docs: `${base}/docs`,
              openapi: `${base}/openapi.json`,
              health: `${base}/health`,
            },
          },
        },
      };
    },
  });
}

/**
 * `GET /api/v1` (links), `GET /openapi.json` and the human docs page, the last two built
 * from the route table.
 */
export function documentationRoutes(apiRoutes: readonly AnyRoute[]): AnyRoute[] {
  let documentText: string | undefined;
  const cachedAssets = new Map<string, Buffer>();
  return [
    indexRoute(''),
    indexRoute('/'),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      access: 'public',
      hidden: true,
      operationId: 'openapi',
      summary: 'The OpenAPI 3.1.0 document',
      tag: 'Documentation',
      responses: { 200: { description: 'The document.' } },
      handler: () => {
        documentText ??= JSON.stringify(buildOpenApi(apiRoutes, version));
        return { status: 200, body: documentText, headers: { 'content-type': 'application/json' } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      access: 'public',
      hidden: true,
      operationId: 'docs',
      summary: 'The API reference, for people',
      tag: 'Documentation',
      responses: { 200: { description: 'An HTML page.' } },
      handler: () => ({
        status: 200,
        body: page.replaceAll('"docs/', '"/api/v1/docs/'),
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/{asset}',
      access: 'public',
      hidden: true,
      operationId: 'docsAsset',
      summary: 'A file of the docs page',
      tag: 'Documentation',
      params: z.object({ asset: z.string() }),
      responses: { 200: { description: 'The file.' } },
      handler: ({ params }): Reply => {
        if (params.asset === 'init.js') {
          const body = init.replace("'openapi.json'", "'/api/v1/openapi.json'");
          return {
            status: 200,
            body,
            headers: { 'content-type': 'text/javascript; charset=utf-8' },
          };
        }
        // Own keys only: `constructor` or `__proto__` must not reach the file system.
        const type = Object.hasOwn(assets, params.asset) ? assets[params.asset] : undefined;
        if (!type) throw new HttpError('not_found', 'No such file.');
        let content = cachedAssets.get(params.asset);
        if (!content) {
          content = readFileSync(join(swaggerUiDir, params.asset));
          cachedAssets.set(params.asset, content);
        }
        return {
          status: 200,
          body: content,
          headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' },
        };
      },
    }),
  ];
}
