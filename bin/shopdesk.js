#!/usr/bin/env node
// The `shopdesk` executable: loads the TypeScript sources through tsx, then runs the CLI.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`shopdesk needs Node.js 22.12 or newer; this is ${process.version}\n`);
  process.exit(1);
}
const { register } = await import('tsx/esm/api');
register();
const { main } = await import('../server/cli/main.ts');
await main(process.argv);
