import { fileURLToPath } from 'node:url';
import { profileFlags, type RunningServer, startServer } from '../lib/spawn.ts';

const executable = fileURLToPath(new URL('../../bin/shopdesk.js', import.meta.url));

/**
 * ShopDesk as IT runs it: `shopdesk serve`, warnings-only logging, no rate limit.
 */
export function startShopDesk(dbFile: string): Promise<RunningServer> {
  return startServer(
    'ShopDesk',
    process.execPath,
    [
      ...profileFlags('shopdesk'),
      executable,
      'serve',
      '--port',
      '0',
      '--db',
      dbFile,
      '--rate-limit',
      '0',
    ],
    { SHOPDESK_LOG_LEVEL: 'warn' },
  );
}
