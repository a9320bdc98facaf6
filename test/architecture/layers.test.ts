import { describe, expect, it } from 'vitest';
import { type ImportEdge, importGraph, sourceFiles } from './import-graph.ts';

/**
 * The layer rule of docs/architecture.md, on the real import graph (type-only imports
 * included: a reader follows them as well). Contracts (`shared/`) at the bottom, storage
 * above them, domain operations above storage, each domain's routes (`routes.ts`,
 * `*-routes.ts`, and its route hooks, `*-hook.ts`) above its operations, and the HTTP core
 * and the wiring on top.
 */

const files = ['server', 'shared', 'agent', 'cli', 'ui'].flatMap(sourceFiles);
const edges = [...importGraph(files).values()].flat();

/** Directories of server/ that are not domains: the HTTP core and storage. */
const notDomains = new Set(['http', 'storage']);
const domainOf = (file: string) => {
  const folder = /^server\/([^/]+)\//.exec(file)?.[1];
  return folder && !notDomains.has(folder) ? folder : undefined;
};
/**
 * A domain's routes: `routes.ts`, the groups it gathers when it has several (`agent-routes.ts`),
 * and the route hooks it owns (`*-hook.ts`: what a route's declaration installs in the
 * pipeline, reading the request as routes do).
 */
const isRoutes = (file: string) =>
  domainOf(file) !== undefined && /\/(([a-z-]+-)?routes|[a-z-]+-hook)\.ts$/.test(file);
const isDomainOperation = (file: string) => domainOf(file) !== undefined && !isRoutes(file);
/** Modules of server/ that depend on nothing of the server: storage may use them. */
const leaves = new Set(['server/config.ts', 'server/time.ts']);

interface Rule {
  rule: string;
  appliesTo: (file: string) => boolean;
  forbids: (imported: string) => boolean;
}

const rules: Rule[] = [
  {
    rule: 'a domain operation (server/<domain>/, not its routes) imports no HTTP core and no routes',
    appliesTo: isDomainOperation,
    forbids: (imported) => imported.startsWith('server/http/') || isRoutes(imported),
  },
  {
    rule: 'storage imports no domain, HTTP core or wiring: only storage, shared/ and the leaves',
    appliesTo: (file) => file.startsWith('server/storage/'),
    forbids: (imported) =>
      imported.startsWith('agent/') ||
      (imported.startsWith('server/') &&
        !imported.startsWith('server/storage/') &&
        !leaves.has(imported)),
  },
  {
    rule: 'the domain errors and the leaves import nothing of the server',
    appliesTo: (file) => file === 'server/domain-errors.ts' || leaves.has(file),
    forbids: (imported) => imported.startsWith('server/') || imported.startsWith('agent/'),
  },
  {
    rule: 'shared/ (the contracts) imports nothing from server/ or agent/',
    appliesTo: (file) => file.startsWith('shared/'),
    forbids: (imported) => imported.startsWith('server/') || imported.startsWith('agent/'),
  },
  {
    rule: 'server/, shared/ and agent/ import nothing from cli/ (the command line stands above them)',
    appliesTo: (file) => !file.startsWith('cli/'),
    forbids: (imported) => imported.startsWith('cli/'),
  },
  {
    rule: 'ui/ (the screens both the console and the tray draw) imports only shared/, ui/ and Preact: what it reads and writes, its caller hands it',
    appliesTo: (file) => file.startsWith('ui/'),
    forbids: (imported) =>
      !imported.startsWith('shared/') &&
      !imported.startsWith('ui/') &&
      imported !== 'preact' &&
      !imported.startsWith('preact/'),
  },
  {
    rule: 'agent/ imports nothing from server/ (it talks to the server over HTTP only)',
    appliesTo: (file) => file.startsWith('agent/'),
    forbids: (imported) => imported.startsWith('server/'),
  },
];

const shown = (edge: ImportEdge) =>
  `${edge.from} → ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`;

describe('layers: who may import whom (docs/architecture.md)', () => {
  it('finds what it checks', () => {
    expect(files).toContain('server/products/create-product.ts');
    expect(edges.some((edge) => edge.to === 'server/http/route.ts')).toBe(true);
    expect(edges.some((edge) => edge.typeOnly)).toBe(true);
  });

  it.each(rules)('$rule', ({ appliesTo, forbids }) => {
    expect(files.some(appliesTo)).toBe(true);
    const offenders = edges.filter((edge) => appliesTo(edge.from) && forbids(edge.to));
    expect(offenders.map(shown)).toEqual([]);
  });
});
