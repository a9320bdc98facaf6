#!/usr/bin/env node
// The `shopdesk` executable: runs the TypeScript sources of the CLI without a build step.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`shopdesk needs Node.js 22.12 or newer; this is ${process.version}\n`);
  process.exit(1);
}
// Node strips the types itself where it can (Node 23.6+, 22.18+; tsconfig's
// erasableSyntaxOnly keeps the sources within what it strips). tsx is the fallback: it
// hooks every module load, the dependencies' too, which costs a command a large share of
// its start-up time.
if (!process.features.typescript) {
  const { register } = await import('tsx/esm/api');
  register();
}
const { main } = await import('../server/cli/main.ts');
await main(process.argv);
