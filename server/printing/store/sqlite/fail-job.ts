import type { Db } from '../../../storage/db.ts';
import { inGroupUnit, oneChange } from '../common/change-unit.ts';
import { failedTransition, failStatement } from '../common/fail-job.ts';
import type { StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { FailRequest, JobRow } from '../queue-store.ts';

/**
 * SQLite's fail: the holder's `claimed → failed`, its event, and the outbox row when an
 * endpoint takes `print_job.failed`, synchronously, in the group commit (`inGroupUnit`).
 * `undefined` when the agent does not hold the job claimed.
 */
export async function failJob(
  context: StoreContext,
  db: Db,
  request: FailRequest,
): Promise<JobRow | undefined> {
  const unit = await oneChange(context, db, 'failed', request.companyId);
  return inGroupUnit(context, db, unit, () => {
    const row = failStatement.sync(db, request)[0];
    if (row) transitionStatement.sync(db, failedTransition(row, request));
    return row;
  });
}
