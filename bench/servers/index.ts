import { fileURLToPath } from 'node:url';
import { profileFlags, type RunningServer, startServer } from '../lib/spawn.ts';

export { startShopDesk } from './ours.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * Fastify + better-sqlite3 doing the same work (see fastify.ts). `sameSql`: it reads the
 * addresses with ShopDesk's SQL (no ORDER BY, sorted in JS) instead of the ORDER BY an
 * integrator would write, so the framework is compared on equal queries.
 */
export function startFastify(dbFile: string, sameSql = false): Promise<RunningServer> {
  const name = sameSql ? 'Fastify, same SQL' : 'Fastify';
  return startServer(name, process.execPath, [
    ...profileFlags(sameSql ? 'fastify-same-sql' : 'fastify'),
    '--import',
    'tsx',
    here('./fastify.ts'),
    '--db',
    dbFile,
    ...(sameSql ? ['--sort-in-js'] : []),
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

/** The name the read's floor goes by in the tables. */
export const floorName = 'node:http + same SQL';

/** Bare node:http running ShopDesk's SQL for the read and nothing else (see floor.ts). */
export function startFloor(dbFile: string, companyId: number) {
  return startServer(floorName, process.execPath, [
    ...profileFlags('floor'),
    '--import',
    'tsx',
    here('./floor.ts'),
    '--db',
    dbFile,
    '--company',
    String(companyId),
  ]);
}
