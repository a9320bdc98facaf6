import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { checkpointerWhenWalGrows, walBytesForThread } from '../../server/storage/checkpointer.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * The WAL checkpointer's thread (server/storage/checkpointer.ts) starts only once the WAL
 * has grown past `walBytesForThread`, and from then on copies the WAL into the database
 * file without the writer's help. The writer's own automatic checkpoint is off here, so
 * that only the thread can have copied anything.
 */
const driver = createRequire(import.meta.url).resolve('better-sqlite3');
const opened: { close(): void }[] = [];
const checkpointers: { stop(): Promise<void> }[] = [];
const folders: string[] = [];

function walDatabase(): { db: BetterSqlite3.Database; file: string } {
  const folder = mkdtempSync(join(tmpdir(), 'shopdesk-checkpointer-'));
  folders.push(folder);
  const file = join(folder, 'wal.sqlite');
  const db = new BetterSqlite3(file);
  opened.push(db);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table pages (body blob)');
  return { db, file };
}

/** Rows of 4 KiB until about `bytes` are written, in one transaction each. */
function write(db: BetterSqlite3.Database, bytes: number): void {
  const insert = db.prepare('insert into pages (body) values (?)');
  for (let written = 0; written < bytes; written += 4096) insert.run(Buffer.alloc(4096, 7));
}

afterEach(async () => {
  for (const checkpointer of checkpointers.splice(0)) await checkpointer.stop();
  for (const db of opened.splice(0)) db.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('the checkpointer thread', () => {
  it('is not started while the WAL stays small', async () => {
    const { db, file } = walDatabase();
    const checkpointer = checkpointerWhenWalGrows(file, driver, 10);
    checkpointers.push(checkpointer);
    write(db, 64 * 1024);
    // Several rounds of looking at the WAL, none of which finds it worth a thread.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(checkpointer.started).toBe(false);
  });

  it('starts once the WAL has grown past its threshold, and copies the WAL into the file', async () => {
    const { db, file } = walDatabase();
    const checkpointer = checkpointerWhenWalGrows(file, driver, 10);
    checkpointers.push(checkpointer);
    write(db, 2 * walBytesForThread);
    await waitFor('the thread to start', () => checkpointer.started);
    await waitFor(
      'the WAL copied into the database file',
      () => statSync(file).size > walBytesForThread,
    );
  });
});
