import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

/**
 * Bundles the Electron app into one directory that electron-builder packs as is:
 *   main.js        the main process, ESM, with the agent core and its JS dependencies inlined
 *   preload.cjs    CommonJS: a sandboxed preload can require only `electron`
 *   renderer/      index.html, styles.css (its parts inlined) and renderer.js (an IIFE: Preact
 *                  and the window, with the components it shares with the console, ui/)
 *   icons/         window and tray pictures
 * Run: `npx tsx agent/electron/bundle.ts [outDir] [--minify]` (npm run agent:build; agent:package
 * adds --minify: a flag, not NODE_ENV=production, so that the script runs in Windows' shell too).
 */
const appDir = dirname(fileURLToPath(import.meta.url));
export const defaultOutDir = join(appDir, 'dist');

/**
 * Left out of main.js and shipped in node_modules instead: `electron` is the runtime itself,
 * pdf-to-printer carries SumatraPDF.exe (asarUnpack), better-sqlite3 is native.
 */
export const mainExternals = ['electron', 'pdf-to-printer', 'better-sqlite3'];

export async function bundleAgentApp(
  outDir: string = defaultOutDir,
  options: { minify?: boolean } = {},
): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(join(outDir, 'renderer'), { recursive: true });
  const common: BuildOptions = {
    bundle: true,
    sourcemap: 'linked',
    minify: options.minify ?? false,
    legalComments: 'none',
    logLevel: 'warning',
    target: 'es2023',
  };

  await Promise.all([
    build({
      ...common,
      entryPoints: [join(appDir, 'main', 'index.ts')],
      outfile: join(outDir, 'main.js'),
      platform: 'node',
      format: 'esm',
      external: mainExternals,
      // CommonJS dependencies bundled into an ES module still call require() for built-ins.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    }),
    build({
      ...common,
      entryPoints: [join(appDir, 'preload', 'index.ts')],
      outfile: join(outDir, 'preload.cjs'),
      platform: 'node',
      format: 'cjs',
      external: ['electron'],
    }),
    build({
      ...common,
      entryPoints: [join(appDir, 'renderer', 'app.tsx')],
      outfile: join(outDir, 'renderer', 'renderer.js'),
      platform: 'browser',
      format: 'iife',
      // As the console's build (console/build.ts): Preact's JSX, its production build.
      jsx: 'automatic',
      jsxImportSource: 'preact',
      define: { 'process.env.NODE_ENV': '"production"' },
    }),
    // The sheet's parts (renderer/styles/) become one file: one request, nothing to @import.
    build({
      ...common,
      entryPoints: [join(appDir, 'renderer', 'styles.css')],
      outfile: join(outDir, 'renderer', 'styles.css'),
    }),
  ]);

  cpSync(join(appDir, 'renderer', 'index.html'), join(outDir, 'renderer', 'index.html'));
  const iconsDir = join(outDir, 'icons');
  mkdirSync(iconsDir, { recursive: true });
  cpSync(join(appDir, 'build', 'icon.png'), join(iconsDir, 'icon.png'));
  const trayDir = join(appDir, 'build', 'tray');
  if (existsSync(trayDir)) {
    for (const file of readdirSync(trayDir)) cpSync(join(trayDir, file), join(iconsDir, file));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const outArg = args.find((arg) => !arg.startsWith('--'));
  const outDir = outArg ? resolve(outArg) : defaultOutDir;
  await bundleAgentApp(outDir, { minify: args.includes('--minify') });
  console.log(`Bundled the agent app into ${outDir}`);
}
