import type { RetryFailedBody, RetryFailedRecord } from '../../../shared/console-jobs.ts';
import { neverRetried } from '../../../shared/job-error-words.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import type { PrintQueue } from './print-queue.ts';
import { jobsMatching } from './read-console-jobs.ts';
import { retryJob } from './retry-job.ts';

/** Jobs one request retries at most; the page asks again while `more` says so. */
export const retryBatch = 200;

/**
 * "Retry all failed on this route/printer", once its cause is fixed: the company's failed
 * jobs there, oldest first, each queued again as the API's retry does (same id, its own
 * transaction, the agents woken once it commits). Jobs whose error a retry cannot help
 * (`neverRetried`: a template that cannot render, a document that does not match) are left
 * failed and counted. A job that changed meanwhile (retried by someone else) is skipped.
 */
export async function retryFailedJobs(
  queue: PrintQueue,
  db: Db,
  companyId: number,
  where: RetryFailedBody,
  now: Date,
): Promise<RetryFailedRecord> {
  const failed = jobsMatching(db, companyId, { ...where, status: 'failed' });
  const ids = await failed
    .select('print_jobs.id')
    .where((eb) =>
      eb.or([
        eb('print_jobs.error_code', 'is', null),
        eb('print_jobs.error_code', 'not in', neverRetried),
      ]),
    )
    .orderBy('print_jobs.id')
    .limit(retryBatch + 1)
    .execute();
  let retried = 0;
  for (const { id } of ids.slice(0, retryBatch)) {
    try {
      await retryJob(queue, db, companyId, id, null, now);
      retried++;
    } catch (error) {
      if (!(error instanceof Conflict)) throw error;
    }
  }
  const left = await failed
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('print_jobs.error_code', 'in', neverRetried)
    .executeTakeFirstOrThrow();
  return { retried, left: Number(left.n), more: ids.length > retryBatch };
}
