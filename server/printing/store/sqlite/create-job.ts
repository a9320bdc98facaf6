import type { Db } from '../../../storage/db.ts';
import { inGroupUnit } from '../common/change-unit.ts';
import { insertQueuedJobNow, storeDocumentNow } from '../common/insert-job.ts';
import type { StoreContext } from '../common/store-context.ts';
import type { JobRow, NewJob } from '../queue-store.ts';

/**
 * SQLite's create: the document (stored once per company and content), the job, its event
 * and the outbox row when an endpoint takes `print_job.created`, synchronously, in the
 * group commit of this turn's writes (`inGroupUnit`, as the claim and the confirm: no
 * Kysely transaction, connection lock or savepoint per create). Agents waiting in this
 * process are woken once it has committed (`JobChanges.committed`); another process hears
 * of it through the file's `data_version`.
 */
export async function createJob(context: StoreContext, db: Db, job: NewJob): Promise<JobRow> {
  const outbox = await context.changes.outboxFor(db, [job.companyId], 'created');
  const changesOf = (row: JobRow) => [{ kind: 'created' as const, row }];
  return inGroupUnit(context, db, { outbox, changesOf }, () => {
    const { content, ...values } = job;
    const document = storeDocumentNow(db, job.companyId, content, job.createdAt);
    return insertQueuedJobNow(db, { ...values, document, reprintOf: null }, null);
  });
}
