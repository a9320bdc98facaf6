import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileFlags, type RunningServer, startServer } from '../lib/spawn.ts';

const thisCheckout = fileURLToPath(new URL('../..', import.meta.url));

/**
 * ShopDesk as IT runs it: `shopdesk serve`, warnings-only logging, no rate limit. By
 * default this checkout's; `checkout` runs another one's (bench/read-against.ts), and
 * `pinToCpu` runs it under `taskset` on that CPU alone.
 */
export function startShopDesk(
  dbFile: string,
  options: { name?: string; checkout?: string; pinToCpu?: number } = {},
): Promise<RunningServer> {
  const { name = 'ShopDesk', checkout = thisCheckout, pinToCpu } = options;
  const args = [
    ...profileFlags('shopdesk'),
    join(checkout, 'bin/shopdesk.js'),
    'serve',
    '--port',
    '0',
    '--db',
    dbFile,
    '--rate-limit',
    '0',
  ];
  const env = { SHOPDESK_LOG_LEVEL: 'warn' };
  if (pinToCpu === undefined) return startServer(name, process.execPath, args, env);
  return startServer(name, 'taskset', ['-c', String(pinToCpu), process.execPath, ...args], env);
}
