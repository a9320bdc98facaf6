import type { Db } from '../../../storage/db.ts';
import { cancelledTransition, cancelStatement } from '../common/cancel-job.ts';
import { inGroupUnit, oneChange } from '../common/change-unit.ts';
import type { StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { Cancel, JobRow } from '../queue-store.ts';

/**
 * SQLite's cancel: the conditional UPDATE, its event, and the outbox row when an endpoint
 * takes `print_job.cancelled`, synchronously, in the unit of work of the claim and the
 * confirm (`inGroupUnit`). `undefined` when the job was no longer queued.
 */
export async function cancelJob(
  context: StoreContext,
  db: Db,
  request: Cancel,
): Promise<JobRow | undefined> {
  const unit = await oneChange(context, db, 'cancelled', request.companyId);
  return inGroupUnit(context, db, unit, () => {
    const row = cancelStatement.sync(db, request)[0];
    if (row) transitionStatement.sync(db, cancelledTransition(request));
    return row;
  });
}
