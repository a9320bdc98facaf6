import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '../lib/spawn.ts';

const executable = fileURLToPath(new URL('../../bin/shopdesk.js', import.meta.url));

/**
 * ShopDesk as IT runs it: `shopdesk serve`, warnings-only logging, no rate limit.
 * `BENCH_CPU_PROF=DIR` writes a V8 CPU profile of the server into DIR when it stops.
 */
export function startShopDesk(dbFile: string): Promise<RunningServer> {
  const profile = process.env.BENCH_CPU_PROF;
  const nodeFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  return startServer(
    'ShopDesk',
    process.execPath,
    [...nodeFlags, executable, 'serve', '--port', '0', '--db', dbFile, '--rate-limit', '0'],
    { SHOPDESK_LOG_LEVEL: 'warn' },
  );
}
