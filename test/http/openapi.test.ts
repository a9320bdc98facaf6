import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyRoute } from '../../server/http/route.ts';
import { apiRoutes } from '../../server/routes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The OpenAPI 3.1.0 document comes from the route table (docs/architecture.md): check it. */

const root = resolve(import.meta.dirname, '../..');
const redocly = join(root, 'node_modules/.bin/redocly');
const dir = mkdtempSync(join(tmpdir(), 'shopdesk-openapi-'));

interface LintResult {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string }[];
}

/** `redocly lint` with the repository's redocly.yaml (extends `recommended`). */
function lint(document: unknown): Promise<LintResult> {
  const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(document, null, 2));
  return new Promise((done, fail) => {
    execFile(
      redocly,
      ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: root,
        timeout: 60_000,
        // TMPDIR: redocly keeps Node's compile cache there; the test's folder is removed after.
        env: {
          ...process.env,
          REDOCLY_TELEMETRY: 'off',
          REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
          TMPDIR: dir,
        },
      },
      (error, stdout, stderr) => {
        try {
          done(JSON.parse(stdout) as LintResult);
        } catch {
          fail(new Error(`redocly gave no report (${error?.message}): ${stderr}`));
        }
      },
    );
  });
}

const visible = apiRoutes.filter((route) => !route.hidden);
const permissionsOf = (route: AnyRoute) =>
  typeof route.access === 'object'
    ? [route.access.permission, ...(route.access.alsoAccepts ?? [])]
    : undefined;

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by path.
let document: any;

beforeAll(async () => {
  server = await startTestServer();
  const answer = await server.request('GET', '/openapi.json');
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  document = answer.body;
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/v1/openapi.json', () => {
  it('is OpenAPI 3.1.0 and needs no token', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(typeof document.info.title).toBe('string');
    expect(typeof document.info.version).toBe('string');
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('lists exactly the non-hidden routes of apiRoutes', () => {
    expect(visible.length).toBeGreaterThanOrEqual(12);
    const listed: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations as object)) {
        listed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(listed.sort()).toEqual(
      visible.map((route) => `${route.method} /api/v1${route.path}`).sort(),
    );
    expect(Object.keys(document.paths)).not.toContain('/api/v1/openapi.json');
    expect(Object.keys(document.paths)).not.toContain('/api/v1/docs');
  });

  it.each(visible.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s carries its permission, security, path parameters and the 503 of an outage',
    (_label, route) => {
      const operation = document.paths[`/api/v1${route.path}`][route.method.toLowerCase()];
      expect(operation.operationId).toBe(route.operationId);
      expect(operation['x-permissions']).toEqual(permissionsOf(route));
      if (route.access === 'public') {
        expect(operation.security).toEqual([]);
      } else {
        expect(operation.security).toEqual([{ bearerAuth: [] }]);
        expect(operation.responses['401']).toBeDefined();
        // A route with a token reads the database: out of reach, it answers 503.
        expect(operation.responses['503']).toEqual({
          $ref: '#/components/responses/Unavailable',
        });
      }
      if (typeof route.access === 'object') {
        expect(operation.responses['403']).toBeDefined();
        for (const permission of permissionsOf(route)!) {
          expect(operation.description).toContain(permission);
        }
      }
      const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const declared = operation.parameters
        .filter((p: { in: string }) => p.in === 'path')
        .map((p: { name: string; required: boolean }) => {
          expect(p.required).toBe(true);
          return p.name;
        });
      expect(declared).toEqual(pathNames);
      // A form route (Epson's printers) documents its body as the form it takes.
      const bodyType =
        route.bodyType === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
      if (route.body) expect(operation.requestBody.content[bodyType]).toBeDefined();
    },
  );

  it('documents ids as integers >= 1, as docs/reference.md does', () => {
    const get = document.paths['/api/v1/customers/{customer}'].get;
    const customer = get.parameters.find((p: { name: string }) => p.name === 'customer');
    expect(customer.schema).toMatchObject({ type: 'integer', minimum: 1 });
  });

  it('records give their ids as integers >= 1; no integer shows the safe-integer floor', () => {
    // Swagger UI shows a schema's minimum as its example value: -9007199254740991 for an id.
    expect(JSON.stringify(document)).not.toContain(String(Number.MIN_SAFE_INTEGER));
    const ids: string[] = [];
    const walk = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      if (Array.isArray(node)) {
        for (const item of node) walk(item);
        return;
      }
      const properties = (node as { properties?: Record<string, Record<string, unknown>> })
        .properties;
      for (const [name, schema] of Object.entries(properties ?? {})) {
        const id = /^(id|\w+_id|reprint_of)$/.test(name)
          ? schema
          : /_ids$/.test(name)
            ? (schema.items as Record<string, unknown>)
            : undefined;
        const integer = [id, ...((id?.anyOf as unknown[]) ?? [])].find(
          (s) => (s as { type?: unknown } | undefined)?.type === 'integer',
        ) as { minimum?: number; exclusiveMinimum?: number } | undefined;
        if (integer) {
          ids.push(name);
          expect(integer.minimum ?? (integer.exclusiveMinimum ?? -1) + 1, name).toBe(1);
        }
      }
      for (const value of Object.values(node)) walk(value);
    };
    walk(document.paths);
    expect(ids.length).toBeGreaterThan(30);
  });

  it.each([
    ['post', '/customers'],
    ['post', '/products'],
    ['put', '/inventory/stock/products/{product}'],
    ['post', '/offers'],
    ['post', '/printing/jobs'],
  ])('%s %s has a request example that the route itself accepts', (method, path) => {
    const route = visible.find((r) => r.method.toLowerCase() === method && r.path === path)!;
    const example =
      document.paths[`/api/v1${path}`][method].requestBody.content['application/json'].example;
    expect(example).toBeDefined();
    expect(route.body!.safeParse(example).success).toBe(true);
  });

  it('names no server of its own: "Try it out" calls the origin the page came from', () => {
    expect(document.servers.map((server: { url: string }) => server.url)).toEqual(['/']);
  });

  it('passes redocly lint (recommended) with no errors and valid examples', async () => {
    const report = await lint(document);
    const errors = report.problems.filter((problem) => problem.severity === 'error');
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    const badExamples = report.problems.filter((problem) => problem.ruleId.includes('example'));
    expect(badExamples).toEqual([]);
  });

  it('the lint run does catch errors (a broken copy fails)', async () => {
    const broken = structuredClone(document);
    delete broken.info;
    const first = Object.values(broken.paths)[0] as Record<string, { responses?: unknown }>;
    delete Object.values(first)[0]!.responses;
    const report = await lint(broken);
    expect(report.totals.errors).toBeGreaterThan(0);
  });
});

describe('GET /api/v1/docs', () => {
  it('serves a page whose scripts and styles all come from this server', async () => {
    const answer = await server.request('GET', '/docs', { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    const html = answer.body as string;
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/unpkg|jsdelivr|cdnjs|googleapis/);
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...html.matchAll(/<link[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    expect(scripts.length).toBeGreaterThanOrEqual(1);
    expect(styles.length).toBeGreaterThanOrEqual(1);
    for (const reference of references) {
      // Same origin: an absolute path, not a protocol-relative `//cdn...`.
      expect(reference).toMatch(/^\/(?!\/)/);
      const asset = await fetch(new URL(reference, server.url));
      expect(asset.status, reference).toBe(200);
      const type = asset.headers.get('content-type') ?? '';
      if (scripts.includes(reference)) expect(type).toMatch(/javascript/);
      if (styles.includes(reference)) expect(type).toMatch(/^text\/css/);
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
  });

  it("points the viewer at this server's own document", async () => {
    const page = await server.request('GET', '/docs');
    const scripts = [...(page.body as string).matchAll(/<script[^>]*src="([^"]+)"/g)].map(
      (m) => m[1]!,
    );
    const texts = await Promise.all(
      scripts.map(async (src) => (await fetch(new URL(src, server.url))).text()),
    );
    expect(texts.some((text) => text.includes("'/api/v1/openapi.json'"))).toBe(true);
  });
});
