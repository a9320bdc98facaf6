import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';

/**
 * Bundles the headless agent (`shopdesk agent`) into one ES module, `agent.mjs`, that plain
 * Node runs: no type stripping, no loader hooks, none of the server's code (its HTTP client is
 * Node's own: agent/core/http-request.ts). bin/shopdesk.js builds it on first use and again
 * whenever one of its inputs changed (docs/agent.md, "Footprint"); `agent.inputs.json` beside
 * it lists the inputs with their size and modification time for that check:
 *   {"esbuild": "0.28.2", "inputs": {"/abs/path.ts": [size, mtimeMs], …}}
 *
 *   node agent/headless/bundle.ts [outDir]     (default: node_modules/.cache/shopdesk-agent)
 */
const headlessDir = dirname(fileURLToPath(import.meta.url));
const root = resolve(headlessDir, '../..');
export const defaultOutDir = join(root, 'node_modules', '.cache', 'shopdesk-agent');
export const bundleFile = 'agent.mjs';
export const inputsFile = 'agent.inputs.json';

/**
 * Left out: pdf-to-printer carries SumatraPDF.exe, which it finds beside its own files, so it
 * stays in node_modules (found from the bundle's folder inside node_modules).
 */
const externals = ['pdf-to-printer'];

/** Builds `agent.mjs` and its inputs list into `outDir`; returns the bundle's path. */
export async function bundleHeadlessAgent(outDir: string = defaultOutDir): Promise<string> {
  const result = await build({
    entryPoints: [join(headlessDir, 'main.ts')],
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    outfile: join(outDir, bundleFile),
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: externals,
    legalComments: 'none',
    // No comments and no indentation: a smaller source, and an ASCII one (a single "—" in a
    // comment makes V8 keep the whole source as UTF-16, twice the memory). Names stay as
    // they are, for readable stack traces.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
    // CommonJS dependencies bundled into an ES module still call require() for built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  const inputs: Record<string, [number, number]> = {};
  for (const input of Object.keys(result.metafile.inputs)) {
    const path = resolve(root, input);
    const stat = statSync(path);
    inputs[path] = [stat.size, stat.mtimeMs];
  }
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, bundleFile);
  // Written aside and renamed: two agents starting at once each see a whole bundle.
  const suffix = `.${process.pid}.tmp`;
  writeFileSync(out + suffix, result.outputFiles[0]!.contents);
  renameSync(out + suffix, out);
  const list = join(outDir, inputsFile);
  writeFileSync(list + suffix, JSON.stringify({ esbuild: esbuildVersion, inputs }));
  renameSync(list + suffix, list);
  return out;
}

if (import.meta.main)
  await bundleHeadlessAgent(process.argv[2] ? resolve(process.argv[2]) : undefined);
