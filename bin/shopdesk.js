#!/usr/bin/env node
// The `shopdesk` executable: runs the TypeScript sources of the CLI without a build step.
// Plain JavaScript that any Node parses, so that an old one gets the advice below, not a
// syntax error.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

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
const { main } = await import('../server/cli/main.ts');
await main(process.argv);
