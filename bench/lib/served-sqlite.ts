import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStorage, type Storage } from '../../server/storage/database.ts';
import { startServe } from '../../test/helpers/serve-process.ts';

/** A `shopdesk serve` on a new SQLite file, and that file opened beside it to seed it. */
export interface ServedSqlite {
  /** The server's address (`http://127.0.0.1:PORT`). */
  url: string;
  /** The server process, whose CPU the bench reads (`cpuSecondsOf`). */
  pid: number;
  storage: Storage;
}

/**
 * Runs `bench` against a `shopdesk serve` of its own (no rate limit) on a SQLite file in a
 * new temporary folder; the server stopped and the folder removed after, whatever happened.
 */
export async function withServedSqlite(
  name: string,
  bench: (served: ServedSqlite) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `shopdesk-bench-${name}-`));
  const file = join(dir, 'shopdesk.sqlite');
  const serve = await startServe(['--db', file, '--create', '--rate-limit', '0']);
  const storage = openStorage({ kind: 'sqlite', file });
  try {
    await bench({ url: serve.url, pid: serve.child.pid!, storage });
  } finally {
    await storage.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    await rm(dir, { recursive: true, force: true });
  }
}
