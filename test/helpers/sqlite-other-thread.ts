import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/** What the worker runs: the statements in one transaction, on a connection of its own. */
const source = `
const { parentPort, workerData } = require('node:worker_threads');
const Sqlite = require(workerData.driver);
const db = new Sqlite(workerData.file);
try {
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  const changes = db.transaction(() =>
    workerData.statements.map(([sql, parameters]) => db.prepare(sql).run(...parameters).changes),
  ).immediate();
  parentPort.postMessage({ changes });
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message) });
} finally {
  db.close();
}
`;

/**
 * Writes to an SQLite file from a connection in another thread, as the CLI does from another
 * process: it waits for the write lock (`busy_timeout`) while this thread goes on. A second
 * connection in *this* thread would wait on the thread that must release the lock: the
 * server's group commit holds it until its turn's immediates run (docs/storage.md). Answers
 * each statement's count of changed rows.
 */
export function writeFromAnotherThread(
  file: string,
  statements: [sql: string, parameters: unknown[]][],
): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { driver, file, statements } });
    worker.once('message', (answer: { changes?: number[]; error?: string }) => {
      if (answer.error !== undefined) reject(new Error(answer.error));
      else resolve(answer.changes!);
    });
    worker.once('error', reject);
  });
}
