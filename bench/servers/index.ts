import { fileURLToPath } from 'node:url';
import { profileFlags, type RunningServer, startServer } from '../lib/spawn.ts';

export { startShopDesk } from './ours.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** Fastify + better-sqlite3 doing the same work (see fastify.ts). */
export function startFastify(dbFile: string): Promise<RunningServer> {
  return startServer('Fastify', process.execPath, [
    ...profileFlags('fastify'),
    '--import',
    'tsx',
    here('./fastify.ts'),
    '--db',
    dbFile,
    ...(process.env.BENCH_BASELINE_SORT_IN_JS === '1' ? ['--sort-in-js'] : []),
  ]);
}

/** Bare node:http answering fixed bodies of the given sizes. */
export function startCeiling(sizes: { get: number; post: number; put: number }) {
  return startServer('node:http', process.execPath, [
    '--import',
    'tsx',
    here('./ceiling.ts'),
    '--get',
    String(sizes.get),
    '--post',
    String(sizes.post),
    '--put',
    String(sizes.put),
  ]);
}
