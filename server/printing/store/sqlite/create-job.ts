import type { Db } from '../../../storage/db.ts';
import { insertQueuedJobNow, storeDocumentNow } from '../common/insert-job.ts';
import type { JobRow, NewJob } from '../queue-store.ts';

/**
 * SQLite's creates: each job's document (stored once per company and content), the job and
 * its event, synchronously, in the group commit of this turn's writes (`../common/batcher.ts`,
 * as the claim and the confirm: no Kysely transaction, connection lock or savepoint per
 * create). Agents waiting in this process are woken once it has committed
 * (`JobChanges.committed`); another process hears of it through the file's `data_version`.
 */
export function createRows(db: Db, batch: NewJob[]): JobRow[] {
  return batch.map((job) => {
    const { content, ...values } = job;
    const document = storeDocumentNow(db, job.companyId, content, job.createdAt);
    return insertQueuedJobNow(db, { ...values, document, reprintOf: null }, null);
  });
}
