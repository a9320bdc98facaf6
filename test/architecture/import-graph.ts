import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root; every path below is relative to it, with `/` separators. */
export const root = resolve(import.meta.dirname, '..', '..');

/** The TypeScript sources under `dir` (relative to the root), built output left out. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).replaceAll('\\', '/'))
    .filter((file) => !file.split('/').includes('dist'))
    .sort();
}

export interface ImportEdge {
  from: string;
  /** The imported file, relative to the root; a package keeps its bare name. */
  to: string;
  specifier: string;
  /** `import type` / `export type`: erased at run time, but still a dependency to a reader. */
  typeOnly: boolean;
}

/**
 * The source with comments and the contents of strings blanked out (specifiers of imports
 * are strings too, so they are kept: a quoted text right after `from`, `import` or
 * `import(` survives). Enough of a lexer for the patterns below not to match inside a
 * comment or a string; template literals are treated as strings (no nested `${}` code).
 * `keepStrings`: only the comments are blanked out (the SQL a file writes is in strings).
 */
export function codeOnly(text: string, { keepStrings = false } = {}): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\') j++;
        if (c !== '`' && text[j] === '\n') break;
        j++;
      }
      const body = text.slice(i + 1, j);
      const before = out.slice(-40);
      // A module specifier: keep it; any other string: blank it out.
      const isSpecifier = c !== '`' && /(\bfrom|\bimport\s*\(?)\s*$/.test(before);
      const kept = keepStrings || isSpecifier;
      out += c + (kept ? body : body.replace(/[^\n]/g, ' ')) + (text[j] ?? '');
      i = j + 1;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

const staticImport =
  /(?:^|[;}\n])\s*(import|export)\s+(type\s+)?(?:[\w*${}\s,]+?\s+from\s*)?['"]([^'"]+)['"]/g;
const dynamicImport = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one file: `import`, `import type`, `export … from`, and `import('…')`. */
export function importsOf(file: string): ImportEdge[] {
  const code = codeOnly(readFileSync(join(root, file), 'utf8'));
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) =>
    edges.push({ from: file, to: resolveSpecifier(file, specifier), specifier, typeOnly });
  for (const match of code.matchAll(staticImport)) {
    // `export const x = …` and the like carry no specifier, so they never match.
    add(match[3]!, match[2] !== undefined);
  }
  for (const match of code.matchAll(dynamicImport)) add(match[1]!, false);
  return edges;
}

function resolveSpecifier(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const target = relative(root, resolve(root, dirname(from), specifier)).replaceAll('\\', '/');
  if (existsSync(join(root, target))) return target;
  throw new Error(`${from}: cannot resolve import '${specifier}'`);
}

/** Each file's imports of other files in the repository (packages left out). */
export function importGraph(files: readonly string[]): Map<string, ImportEdge[]> {
  return new Map(
    files.map((file) => [file, importsOf(file).filter((edge) => edge.specifier.startsWith('.'))]),
  );
}

/**
 * The import circles of the graph: one per strongly connected component of more than one
 * file (or a file importing itself), shown as a path that comes back to its start.
 */
export function importCircles(graph: ReadonlyMap<string, ImportEdge[]>): string[][] {
  // Tarjan's algorithm, iterative enough for a few hundred files by recursion.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    stack.push(file);
    onStack.add(file);
    for (const { to } of graph.get(file) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      const selfImport = (graph.get(file) ?? []).some((edge) => edge.to === file);
      if (component.length > 1 || selfImport) components.push(component);
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return components.map((component) => circleThrough(graph, new Set(component)));
}

/** A shortest way from the component's first file (sorted) back to itself, inside it. */
function circleThrough(graph: ReadonlyMap<string, ImportEdge[]>, members: Set<string>): string[] {
  const start = [...members].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const { to } of graph.get(file) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start];
}
