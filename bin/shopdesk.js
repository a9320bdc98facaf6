#!/usr/bin/env node
// The `shopdesk` executable: runs the TypeScript sources of the CLI without a build step.
// Plain JavaScript that any Node parses, so that an old one gets the advice below, not a
// syntax error.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The floor of our production dependencies (undici 8 declares 22.19); package.json `engines`.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 19)) {
  // `npm install` puts Node 24 into node_modules/.bin (the `node` dev dependency); npm
  // scripts and npx put that folder first on PATH, so they run on it whatever Node the
  // shell has. Started by hand, this file gets the shell's Node: say how to reach the other.
  const bundled = existsSync(new URL('../node_modules/.bin/node', import.meta.url));
  process.stderr.write(
    `shopdesk needs Node.js 22.19 or newer; this is ${process.version}.\n` +
      (bundled
        ? 'Run it through npm, which uses the Node 24 in node_modules: `npx shopdesk …` or `npm start`.\n'
        : 'Install Node.js 22.19 or newer (24 LTS recommended), or run `npm install` with the dev dependencies to get Node 24 in node_modules.\n'),
  );
  process.exit(1);
}
// Compiled code is cached between runs (Node 22.1+): a command starts ~100-300 ms sooner.
// Beside the dependencies rather than in the system's temporary folder; where that folder is
// not writable Node carries on without a cache.
module.enableCompileCache?.(
  fileURLToPath(new URL('../node_modules/.cache/shopdesk-compile', import.meta.url)),
);
// Node strips the types itself where it can (22.18+, 23.6+; tsconfig's erasableSyntaxOnly
// keeps the sources within what it strips). tsx is the fallback when that is turned off
// (--no-experimental-strip-types): it hooks every module load, the dependencies' too, which
// costs a command a large share of its start-up time.
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
/**
 * What the agent's process starts with (docs/agent.md, "Footprint"; each measured with
 * bench/agent-footprint.ts): a young generation of at most 1 MiB per semi-space (V8 grows it
 * to 16 MiB under the allocations of a burst of jobs, and keeps it), one V8 worker thread
 * instead of four (background GC and compiling; the agent is idle most of the time), and at
 * most two malloc arenas (glibc gives each thread that allocates its own).
 */
const agentNodeFlags = ['--max-semi-space-size=1', '--v8-pool-size=1'];
const agentEnvironment = { MALLOC_ARENA_MAX: '2' };

if (process.argv[2] === 'agent') await runAgent();
else {
  const { main } = await import('../cli/main.ts');
  await main(process.argv);
}

/**
 * `shopdesk agent …`: the headless print agent runs alone, from its esbuild bundle
 * (agent/headless/bundle.ts), not from the whole CLI's sources: a fraction of the memory
 * (docs/agent.md, "Footprint"). The bundle is built on first use into node_modules/.cache and
 * again whenever one of its inputs changed. Without esbuild (an install without the dev
 * dependencies) or where the build fails, the agent runs from its sources, as before.
 */
async function runAgent() {
  const bundle = await agentBundle();
  if (!bundle) {
    const { main } = await import('../agent/headless/main.ts');
    return main(process.argv);
  }
  // On Linux and macOS the process becomes `node <flags> agent.mjs agent …` (the same pid,
  // which a service manager watches): the flags must be given at start. Windows has no
  // exec: the bundle runs in this process, without them.
  if (typeof process.execve === 'function' && process.platform !== 'win32') {
    try {
      process.execve(
        process.execPath,
        [
          process.execPath,
          ...process.execArgv,
          ...agentNodeFlags,
          bundle,
          ...process.argv.slice(2),
        ],
        { ...agentEnvironment, ...process.env },
      );
    } catch {
      // Not replaced (a sandbox that forbids exec): the bundle runs here, without the flags.
    }
  }
  const { main } = await import(pathToFileURL(bundle).href);
  return main(process.argv);
}

/** The bundle's path, built or rebuilt if needed; null when it cannot be had. */
async function agentBundle() {
  const dir = fileURLToPath(new URL('../node_modules/.cache/shopdesk-agent/', import.meta.url));
  const bundle = join(dir, 'agent.mjs');
  if (bundleIsFresh(dir, bundle)) return bundle;
  if (!existsSync(new URL('../node_modules/esbuild/package.json', import.meta.url))) return null;
  const script = fileURLToPath(new URL('../agent/headless/bundle.ts', import.meta.url));
  const build = spawnSync(
    process.execPath,
    [...(process.features.typescript ? [] : ['--import', 'tsx']), script, dir],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (build.status === 0 && existsSync(bundle)) return bundle;
  process.stderr.write(
    `${new Date().toISOString()} warn could not build the agent's bundle (exit ${build.status ?? build.signal}); running it from the sources\n`,
  );
  return null;
}

/** agent.inputs.json lists every input with its size and mtime; any change → stale. */
function bundleIsFresh(dir, bundle) {
  try {
    const { inputs } = JSON.parse(readFileSync(join(dir, 'agent.inputs.json'), 'utf8'));
    if (!existsSync(bundle)) return false;
    for (const [path, [size, mtimeMs]] of Object.entries(inputs)) {
      const stat = statSync(path);
      if (stat.size !== size || stat.mtimeMs !== mtimeMs) return false;
    }
    return true;
  } catch {
    return false;
  }
}
