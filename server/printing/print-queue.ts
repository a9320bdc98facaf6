import { sql, type Transaction } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { type JobNotifier, jobsChannel, noticeOf } from './notifier.ts';

/**
 * What the operations that queue a job (create, retry, reprint, a claim given back) work
 * with: the storage, and the notifier of the agents waiting in this process. A process
 * where no agent waits (the CLI) passes a notifier nobody listens to: the server hears of
 * its jobs through NOTIFY (PostgreSQL) or SQLite's data_version watch.
 */
export interface PrintQueue {
  storage: Storage;
  notifier: Pick<JobNotifier, 'jobQueued'>;
}

/**
 * Runs `work`, a change that leaves one job queued (or nothing, when it returns undefined),
 * in a transaction, and wakes the agents waiting on that job's route, so that no operation
 * that queues a job can leave them asleep:
 * - on PostgreSQL, a NOTIFY on `shopdesk_jobs` inside the transaction: PostgreSQL delivers
 *   it to every instance when (and only if) the transaction commits;
 * - in this process, the notifier, once the transaction has committed.
 * Either way no waiter is woken before the job can be claimed.
 */
export async function queueInTransaction<T extends { id: number; route: string } | undefined>(
  queue: PrintQueue,
  companyId: number,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const { storage, notifier } = queue;
  return storage.transaction(async (trx) => {
    const job = await work(trx);
    if (!job) return job;
    if (storage.dialect === 'postgres') {
      await sql`select pg_notify(${jobsChannel}, ${noticeOf(companyId, job.route, job.id)})`.execute(
        trx,
      );
    }
    // After the outermost commit: inside a larger unit of work (an idempotent request),
    // the job becomes claimable only when that unit commits.
    storage.afterCommit(() => notifier.jobQueued(companyId, job.route));
    return job;
  });
}
