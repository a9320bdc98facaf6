import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { postgresMarkers, projectOf, systemMarkers, testProjects } from '../projects.ts';
import { root, sourceFiles } from './import-graph.ts';

/**
 * The Vitest projects (docs/testing.md) hold every test file once, each in the project of
 * the services it reaches, and every helper that checks for a service is one the
 * projects look for.
 */
describe('the test projects', () => {
  it('hold every test file exactly once', () => {
    const listed = Object.values(testProjects()).flat().sort();
    const files = sourceFiles('test').filter((file) => file.endsWith('.test.ts'));
    expect(listed).toEqual(files);
  });

  it.each([
    ['test/agent/journal.test.ts', 'unit'],
    ['test/printing/long-poll-wait.test.ts', 'unit'],
    ['test/customers/customers.happy.test.ts', 'sqlite'],
    ['test/cli/serve.test.ts', 'sqlite'],
    ['test/storage/postgres.test.ts', 'postgres'],
    ['test/http/inputs.security.test.ts', 'postgres'],
    ['test/http/rate-limit-shared.test.ts', 'system'],
    ['test/agent/cups-backend.test.ts', 'system'],
    ['test/http/docs-page.test.ts', 'system'],
    ['test/deploy/nginx.test.ts', 'system'],
    ['test/fuzz/routes-sqlite.test.ts', 'fuzz'],
  ])('%s lands in %s', (file, project) => {
    expect(projectOf(file)).toBe(project);
  });

  it('know every helper that checks for a service', () => {
    const checking = sourceFiles('test/helpers').filter(
      (file) =>
        !file.endsWith('/services.ts') &&
        /\brequire(Service|Program)\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(checking.length).toBeGreaterThan(0);
    for (const file of checking) expect([...systemMarkers, ...postgresMarkers]).toContain(file);
  });
});
