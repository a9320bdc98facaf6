import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { jobsChannel, noticeOf, type WaitersHere } from '../queue-notices.ts';
import type { JobChanges, JobRow } from '../queue-store.ts';

/** What every store's operations work with: the storage, and where job changes are announced. */
export interface StoreContext {
  storage: Storage;
  changes: JobChanges;
  /**
   * The agents waiting in this process (PostgreSQL, once its notifier is open): a job one
   * of them will take is announced here alone. Unset (SQLite, the command line): every
   * queued job is announced to every process.
   */
  waitersHere?: WaitersHere;
}

/**
 * A job queued in `trx`: to an agent of this process that waits for it, once committed
 * (`WaitersHere`), else to every process with the commit (NOTIFY; a no-op on SQLite).
 */
export async function announceQueued(
  { storage, waitersHere }: StoreContext,
  trx: Db,
  { company_id: companyId, route, id: jobId }: JobRow,
): Promise<void> {
  if (waitersHere?.takesHere(companyId, route)) {
    storage.afterCommit(trx, () => waitersHere.queuedHere(companyId, route));
    return;
  }
  await notify(trx, jobsChannel, noticeOf(companyId, route, jobId));
}
