import { statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own. With `synchronous = NORMAL` a commit does not
 * fsync; a checkpoint does (the WAL before copying it into the database file, the file
 * after), and SQLite's automatic checkpoint runs inside the commit that crossed its
 * threshold, on the request path: 2–40 ms every ~100 commits, which more than doubled the
 * average commit (~97 µs against ~20 µs for the median, on `npm run bench`'s creates). Here a second
 * connection in a worker runs `PRAGMA wal_checkpoint(PASSIVE)` every `intervalMs`: a
 * passive checkpoint never takes the writer's lock, so commits go on meanwhile, and it
 * copies (and syncs) nothing when no frame is new. Durability is unchanged: a committed
 * transaction is in the WAL whether or not it has been checkpointed.
 *
 * The thread costs ~60 ms of CPU to start and a checkpoint call every round: it is started
 * only once the WAL has grown past `walBytesForThread` (`checkpointerWhenWalGrows`). A
 * process that writes little (a command, a quiet shop) never starts it; its WAL is copied
 * when its connection closes.
 */
const source = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file);
db.pragma('synchronous = NORMAL');
// Prepared once: \`db.pragma()\` compiles its statement on every call.
const passive = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
const checkpoint = () => {
  try {
    passive.get();
  } catch {
    // Busy or gone: the next round (or the writer's own automatic checkpoint) does it.
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Stops the thread and closes its connection; resolves once it has. */
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, driver: string, intervalMs = 100): Checkpointer {
  const worker = new Worker(source, { eval: true, workerData: { file, driver, intervalMs } });
  // It must never keep a process alive, nor bring it down: at worst the writer's own
  // (rarer) automatic checkpoint is left.
  worker.unref();
  worker.on('error', () => {});
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      // Referenced again: a process must not exit while close() waits for the thread.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}

/** The WAL's size past which the thread is worth its start: ~250 pages of 4 KiB. */
export const walBytesForThread = 1024 * 1024;

/**
 * Starts the checkpointer for `file` once its WAL has grown past `walBytesForThread`, looked
 * at every `checkEveryMs` (one `stat`, a few microseconds).
 */
export function checkpointerWhenWalGrows(
  file: string,
  driver: string,
  checkEveryMs = 100,
): Checkpointer & { readonly started: boolean } {
  let checkpointer: Checkpointer | undefined;
  const look = () => {
    let size = 0;
    try {
      size = statSync(`${file}-wal`).size;
    } catch {
      return; // No WAL yet: nothing written.
    }
    if (size < walBytesForThread) return;
    clearInterval(watch);
    checkpointer = startCheckpointer(file, driver);
  };
  const watch = setInterval(look, checkEveryMs);
  watch.unref();
  look();
  return {
    get started() {
      return checkpointer !== undefined;
    },
    async stop() {
      clearInterval(watch);
      await checkpointer?.stop();
    },
  };
}
