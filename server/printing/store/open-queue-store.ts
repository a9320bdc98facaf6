import type { Storage } from '../../storage/database.ts';
import { PostgresQueueStore } from './postgres/postgres-queue-store.ts';
import type { JobChanges, PrintQueueStore } from './queue-store.ts';
import { SqliteQueueStore } from './sqlite/sqlite-queue-store.ts';

/** The print queue's store for this storage's database; its changes go to `changes`. */
export function openQueueStore(storage: Storage, changes: JobChanges): PrintQueueStore {
  return storage.byDialect<PrintQueueStore>({
    sqlite: () => new SqliteQueueStore(storage, changes),
    postgres: () => new PostgresQueueStore(storage, changes),
  });
}
