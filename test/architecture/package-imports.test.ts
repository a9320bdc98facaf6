import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importsOf, root, sourceFiles } from './import-graph.ts';

/**
 * Libraries are used through their public API (docs/internals.md, "Libraries"): no source
 * file imports a file of a package that the package does not offer, so that an upgrade which
 * moves its insides breaks nothing here. A package offers what its `exports` list; one
 * without `exports` offers its main module alone. Imports, re-exports, `import()` and
 * `require()` are checked; `require.resolve` of a data file (a font) is not an import.
 */

// The product and its tools; tests may open a tool's insides to check its configuration.
const folders = ['server', 'shared', 'agent', 'cli', 'console', 'ui', 'bin', 'scripts', 'bench'];
const files = folders.filter((folder) => existsSync(join(root, folder))).flatMap(sourceFiles);

const builtins = new Set(builtinModules);
const requireCall = /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The package a bare specifier names, and the subpath after it (`''` for the package itself). */
function packageOf(specifier: string): { name: string; subpath: string } {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  return { name: parts.slice(0, length).join('/'), subpath: parts.slice(length).join('/') };
}

/** Whether `name`'s package.json offers `./subpath` among its `exports`. */
function exported(name: string, subpath: string): boolean {
  const manifest = join(root, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) return true; // not installed here: nothing to check against
  const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown }).exports;
  if (exports === undefined || typeof exports === 'string' || Array.isArray(exports)) {
    return false;
  }
  const keys = Object.keys(exports as object).filter((key) => key.startsWith('.'));
  const wanted = `./${subpath}`;
  return keys.some((key) => {
    if (!key.includes('*')) return key === wanted;
    const [before, after] = key.split('*') as [string, string];
    return wanted.startsWith(before) && wanted.endsWith(after) && wanted.length >= key.length - 1;
  });
}

/** Every bare specifier of `file` that names a package's subpath. */
function subpathImports(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [
    ...importsOf(file).map((edge) => edge.specifier),
    ...[...text.matchAll(requireCall)].map((match) => match[1]!),
  ];
  return specifiers.filter((specifier) => {
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtins.has(specifier)) {
      return false;
    }
    return packageOf(specifier).subpath !== '';
  });
}

describe('packages are imported through what they export', () => {
  it('no source file imports a file a package does not export', () => {
    const offending = files.flatMap((file) =>
      subpathImports(file)
        .filter((specifier) => !exported(packageOf(specifier).name, packageOf(specifier).subpath))
        .map((specifier) => `${file}: ${specifier}`),
    );
    expect(offending).toEqual([]);
  });

  it('the check knows an export from a deep import', () => {
    expect(exported('kysely', 'migration')).toBe(true);
    expect(exported('preact', 'hooks')).toBe(true);
    expect(exported('undici', 'lib/dispatcher/agent.js')).toBe(false);
  });
});
