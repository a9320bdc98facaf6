import { importsOf, sourceFiles } from './architecture/import-graph.ts';

/**
 * The Vitest projects, and which test file lands in which (docs/testing.md). A file says
 * what it needs by the helpers it uses, so its project follows from what it imports, at run
 * time (type-only imports left out), through helpers and the code under test alike:
 *
 * - `fuzz`: everything under test/fuzz/ (long property runs, both databases);
 * - `system`: it reaches a helper that starts or reaches CUPS, Chromium, nginx, Redis or
 *   another program `.ci/run` installs (`systemMarkers`);
 * - `postgres`: it reaches `freshDatabase()` (test/helpers/postgres.ts), directly or through
 *   `startTestServerOn()` and the other PostgreSQL helpers;
 * - `sqlite`: it opens storage in its process (a real server, `server/storage/database.ts`,
 *   or better-sqlite3 itself) or runs `shopdesk` (the command line, `serve`) in a process,
 *   on SQLite;
 * - `unit`: none of these.
 */
export const projectNames = ['unit', 'sqlite', 'postgres', 'system', 'fuzz'] as const;
export type ProjectName = (typeof projectNames)[number];

/** The helpers that start or reach a service of the `system` project. */
export const systemMarkers = [
  'test/helpers/cups.ts',
  'test/helpers/chromium.ts',
  'test/helpers/nginx.ts',
  'test/helpers/redis.ts',
  'test/helpers/system-programs.ts',
];
export const postgresMarkers = ['test/helpers/postgres.ts'];
const sqliteMarkers = [
  'server/storage/database.ts',
  'better-sqlite3',
  'test/helpers/serve-process.ts',
  'test/agent-e2e/helpers/agent-process.ts',
];

/** What each file reaches at run time: itself, and every file and package it imports. */
function reachFrom(file: string, reached: Map<string, Set<string>>): Set<string> {
  const known = reached.get(file);
  if (known !== undefined) return known;
  const all = new Set<string>([file]);
  reached.set(file, all); // an import circle stops here
  if (!file.endsWith('.ts')) return all;
  for (const edge of importsOf(file)) {
    if (edge.typeOnly || edge.to.startsWith('node:')) continue;
    for (const name of reachFrom(edge.to, reached)) all.add(name);
  }
  return all;
}

export function projectOf(file: string, reached = new Map<string, Set<string>>()): ProjectName {
  if (file.startsWith('test/fuzz/')) return 'fuzz';
  const reach = reachFrom(file, reached);
  if (systemMarkers.some((marker) => reach.has(marker))) return 'system';
  if (postgresMarkers.some((marker) => reach.has(marker))) return 'postgres';
  if (sqliteMarkers.some((marker) => reach.has(marker))) return 'sqlite';
  return 'unit';
}

/** Every test file by project. */
export function testProjects(): Record<ProjectName, string[]> {
  const projects = Object.fromEntries(projectNames.map((name) => [name, [] as string[]])) as Record<
    ProjectName,
    string[]
  >;
  const reached = new Map<string, Set<string>>();
  for (const file of sourceFiles('test').filter((name) => name.endsWith('.test.ts'))) {
    projects[projectOf(file, reached)].push(file);
  }
  return projects;
}
