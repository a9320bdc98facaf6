import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { faviconIco } from './favicon.ts';

/**
 * Builds the web console into console/dist/ (git-ignored): app.js (Preact and the pages, one
 * minified bundle), app.css, index.html and favicon.ico. `shopdesk serve` (so `npm start`) and the
 * tests' helper run it when dist/ is missing or older than the sources;
 * `npm run console:build` runs it by hand. Not an npm `postinstall`: npx runs the package's
 * install scripts on every `npx shopdesk …` (measured: 6.6 s instead of ~1 s a command).
 * The server reads dist/ (server/console/pages.ts).
 * Run: `node console/build.ts`.
 */
const consoleDir = dirname(fileURLToPath(import.meta.url));
export const distDir = join(consoleDir, 'dist');

/** What a build writes into dist/ (the server serves them: server/console/pages.ts). */
const builtFiles = ['app.js', 'app.css', 'index.html', 'favicon.ico'];

/** When a file was last changed, or 0 when it is missing. */
const changedAt = (file: string): number => statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;

/**
 * Whether dist/ holds a build newer than every source file (`shopdesk serve` builds one when
 * it does not: after a fresh clone, and after a pull that changed the pages).
 */
export function isConsoleBuilt(outDir: string = distDir): boolean {
  const built = Math.min(...builtFiles.map((name) => changedAt(join(outDir, name))));
  if (built === 0) return false;
  // The pages, and the components they share with the tray's window (ui/).
  const sourceDirs = [join(consoleDir, 'src'), join(consoleDir, '..', 'ui')];
  const sources = sourceDirs.flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((name) => join(dir, name)),
  );
  const newest = Math.max(
    changedAt(join(consoleDir, 'build.ts')),
    changedAt(join(consoleDir, 'favicon.ts')),
    ...sources.map(changedAt),
  );
  return built >= newest;
}

export interface BuiltConsole {
  /** Bytes of app.js + app.css + index.html, and gzipped (what a browser downloads). */
  bytes: number;
  gzipped: number;
}

export async function buildConsole(outDir: string = distDir): Promise<BuiltConsole> {
  const { build } = await import('esbuild');
  // Written aside, then each file renamed into place (atomic): a server, or a test worker
  // building at the same time, never reads half a file.
  const staging = join(outDir, `.staging-${process.pid}-${Date.now()}`);
  mkdirSync(staging, { recursive: true });
  await build({
    entryPoints: [join(consoleDir, 'src', 'main.tsx')],
    outfile: join(staging, 'app.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  writeFileSync(join(staging, 'app.css'), readFileSync(join(consoleDir, 'src', 'styles.css')));
  writeFileSync(join(staging, 'index.html'), readFileSync(join(consoleDir, 'src', 'index.html')));
  writeFileSync(join(staging, 'favicon.ico'), faviconIco());
  for (const name of builtFiles) {
    renameSync(join(staging, name), join(outDir, name));
  }
  rmSync(staging, { recursive: true, force: true });
  let bytes = 0;
  let gzipped = 0;
  for (const name of ['app.js', 'app.css', 'index.html']) {
    const body = readFileSync(join(outDir, name));
    bytes += body.length;
    gzipped += gzipSync(body, { level: 9 }).length;
  }
  return { bytes, gzipped };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const built = await buildConsole();
    console.log(
      `console built: ${(built.bytes / 1024).toFixed(1)} KB, ${(built.gzipped / 1024).toFixed(1)} KB gzipped`,
    );
  } catch (error) {
    // An install without dev dependencies (no esbuild) still installs; serve says it is not built.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      console.warn(
        'console not built: esbuild is not installed (npm install with dev dependencies)',
      );
    } else throw error;
  }
}
