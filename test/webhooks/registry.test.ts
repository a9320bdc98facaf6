import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../server/http/openapi.ts';
import { apiRoutes } from '../../server/routes.ts';
import { webhookEventTypes } from '../../shared/webhooks.ts';
import { root } from '../architecture/import-graph.ts';

/**
 * The event registry (shared/webhooks.ts) kept in step with docs/webhooks.md, whose
 * "Events" table names every type an endpoint may subscribe to, and nothing else.
 */
describe('the webhook event registry', () => {
  const docs = readFileSync(join(root, 'docs/webhooks.md'), 'utf8');
  const section = docs.split(/^## /m).find((part) => part.startsWith('Events'));

  it('has an Events table in docs/webhooks.md listing exactly the registry', () => {
    expect(section).toBeDefined();
    const documented = [...section!.matchAll(/^\| `([\w.]+)` \|/gm)].map((m) => m[1]);
    expect(documented).toEqual([...webhookEventTypes]);
  });

  it('puts every webhook route under webhooks.manage in the OpenAPI document', () => {
    const document = buildOpenApi(apiRoutes, '0.0.0') as {
      paths: Record<string, Record<string, { 'x-permissions'?: string[] }>>;
    };
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/v1/webhooks'))
      .flatMap(([, methods]) => Object.values(methods));
    expect(operations).toHaveLength(9);
    for (const operation of operations)
      expect(operation['x-permissions']).toEqual(['webhooks.manage']);
  });
});
