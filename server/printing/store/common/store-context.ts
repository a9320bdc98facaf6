import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { jobsChannel, noticeOf } from '../queue-notices.ts';
import type { JobChange, JobChanges } from '../queue-store.ts';

/** What every store's operations work with: the storage, and where job changes are announced. */
export interface StoreContext {
  storage: Storage;
  changes: JobChanges;
}

/**
 * Finishes a change in its transaction (`trx`): a job left queued is announced to every
 * process (NOTIFY, delivered with the commit), the change's webhook outbox rows are written,
 * and once the transaction has committed the change is announced in this process
 * (`JobChanges.committed`). Every path of a store that commits in a transaction ends here.
 */
export async function finishChange(
  { storage, changes }: StoreContext,
  trx: Db,
  change: JobChange,
): Promise<void> {
  const { row } = change;
  if (row.status === 'queued') {
    await notify(trx, jobsChannel, noticeOf(row.company_id, row.route, row.id));
  }
  await changes.record(trx, change);
  storage.afterCommit(trx, () => changes.committed(change));
}
