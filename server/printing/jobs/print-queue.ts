import type { Storage } from '../../storage/database.ts';
import type { PrintQueueStore } from '../store/queue-store.ts';

/**
 * What the job operations work with: the storage (for the transactions that make several
 * of the store's steps one unit) and the queue's store.
 */
export interface PrintQueue {
  storage: Storage;
  store: PrintQueueStore;
}
