import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codeOnly,
  type ImportEdge,
  importCircles,
  importGraph,
  root,
  sourceFiles,
} from './import-graph.ts';

/**
 * Folders as modules (docs/internals.md, "Modules"): each folder of server/ owns its tables
 * and offers the others what its `index.ts` exports. Checked on the real import graph
 * (type-only imports included) and on the SQL of every file. The files at the top of
 * server/ are no folder: the wiring (app.ts, routes.ts, services.ts) builds every module,
 * and the leaves (config.ts, time.ts, domain-errors.ts…) import nothing of the server.
 */

const files = sourceFiles('server');
const edges = [...importGraph(files).values()].flat();

const folderOf = (file: string) => /^server\/([^/]+)\//.exec(file)?.[1];
const folders = readdirSync(join(root, 'server'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** The layers every domain builds on: their files are imported directly (docs/architecture.md). */
const layers = new Set(['http', 'storage']);

const between = edges.filter((edge) => {
  const from = folderOf(edge.from);
  const to = folderOf(edge.to);
  return from !== undefined && to !== undefined && from !== to;
});

const shown = (edge: ImportEdge) =>
  `${edge.from} → ${edge.to}${edge.typeOnly ? ' (type-only)' : ''}`;

/** The tables of the module map, each with the folder that owns it. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  const doc = readFileSync(join(root, 'docs/internals.md'), 'utf8');
  for (const [, folder, owns] of doc.matchAll(/^\| `([a-z-]+)\/` \| ([^|]*) \|/gm)) {
    for (const [, table] of owns!.matchAll(/`([a-z_]+)`/g)) owners.set(table!, folder!);
  }
  return owners;
}

/** The tables the migrations create. */
function createdTables(): string[] {
  return sourceFiles('server/storage/migrations')
    .flatMap((file) => [
      ...readFileSync(join(root, file), 'utf8').matchAll(/createTable\(\s*'([a-z_]+)'/g),
    ])
    .map((match) => match[1]!)
    .sort();
}

const tableArgument =
  /\.(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin|mergeInto|replaceInto)\(\s*['"`]([a-z_]+)/g;
const sqlTemplate = /\bsql(?:<[^>`]*>)?`([^`]*)`/g;
const sqlTable = /\b(?:from|join|into|update)\s+"?([a-z_]+)/gi;

/** The tables a source names in SQL: Kysely's table arguments and `sql` templates. */
function tablesNamedIn(source: string, known: ReadonlySet<string>): string[] {
  const code = codeOnly(source, { keepStrings: true });
  const named = [...code.matchAll(tableArgument)].map((match) => match[1]!);
  for (const [, text] of code.matchAll(sqlTemplate)) {
    named.push(...[...text!.matchAll(sqlTable)].map((match) => match[1]!.toLowerCase()));
  }
  return [...new Set(named.filter((table) => known.has(table)))].sort();
}

describe('folders as modules (docs/internals.md)', () => {
  const owners = tableOwners();

  it('finds what it checks', () => {
    expect(folders).toEqual(expect.arrayContaining(['printing', 'products', 'stock', 'tokens']));
    expect(between.length).toBeGreaterThan(20);
    expect(owners.get('print_jobs')).toBe('printing');
    const known = new Set(owners.keys());
    expect(tablesNamedIn("db.selectFrom('tokens as t').innerJoin('companies', …)", known)).toEqual([
      'companies',
      'tokens',
    ]);
    expect(tablesNamedIn('sql`update print_jobs set x = 1 from "print_routes" r`', known)).toEqual([
      'print_jobs',
      'print_routes',
    ]);
    expect(tablesNamedIn("// db.selectFrom('tokens')\nconst x = 'from tokens';", known)).toEqual(
      [],
    );
  });

  it('no folder imports, through any number of folders, a folder that imports it', () => {
    const graph = new Map<string, ImportEdge[]>(folders.map((folder) => [folder, []]));
    for (const edge of between) {
      const from = folderOf(edge.from)!;
      const to = folderOf(edge.to)!;
      if (!graph.get(from)!.some((e) => e.to === to)) {
        graph.get(from)!.push({ from, to, specifier: edge.specifier, typeOnly: edge.typeOnly });
      }
    }
    expect(importCircles(graph).map((circle) => circle.join(' → '))).toEqual([]);
  });

  it('a folder imports another only through its index.ts (http/ and storage/ are layers)', () => {
    const offenders = between.filter(
      (edge) =>
        !layers.has(folderOf(edge.to)!) && edge.to !== `server/${folderOf(edge.to)}/index.ts`,
    );
    expect(offenders.map(shown)).toEqual([]);
  });

  it('the module map names every folder and, once, every table the migrations create', () => {
    const mapped = [...new Set(tableOwners().values())];
    const doc = readFileSync(join(root, 'docs/internals.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((match) => match[1]!).sort();
    expect(listed).toEqual(folders);
    expect(mapped.every((folder) => folders.includes(folder))).toBe(true);
    expect([...owners.keys()].sort()).toEqual(createdTables());
  });

  it('a table is named in SQL only in the folder that owns it (and in migrations)', () => {
    const known = new Set(owners.keys());
    const offenders = files
      .filter((file) => !file.startsWith('server/storage/migrations/'))
      .flatMap((file) =>
        tablesNamedIn(readFileSync(join(root, file), 'utf8'), known)
          .filter((table) => {
            const owner = owners.get(table);
            return owner !== folderOf(file);
          })
          .map((table) => `${file} names ${table} (${owners.get(table)}'s)`),
      );
    expect(offenders).toEqual([]);
  });
});
