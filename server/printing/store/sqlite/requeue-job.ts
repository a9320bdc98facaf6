import type { Db } from '../../../storage/db.ts';
import { inGroupUnit, oneChange } from '../common/change-unit.ts';
import {
  jobRowOf,
  requeuedTransition,
  requeueParams,
  requeueStatement,
} from '../common/requeue-job.ts';
import type { StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { JobRow, Requeue } from '../queue-store.ts';

/**
 * SQLite's requeue (a retry, a held job given back by its agent): the conditional UPDATE and
 * its event, synchronously, in the unit of work of the claim and the confirm (`inGroupUnit`;
 * inside the caller's transaction, where its read of the job is). The agents waiting in this
 * process are woken once it has committed (`JobChanges.committed`).
 */
export async function requeueJob(
  context: StoreContext,
  db: Db,
  request: Requeue,
): Promise<JobRow | undefined> {
  const p = requeueParams(request);
  const kind = request.waitReason ? 'released' : 'requeued';
  const unit = await oneChange(context, db, kind, p.companyId, request.waitReason);
  return inGroupUnit(context, db, unit, () => {
    const found = requeueStatement.sync(db, p)[0];
    if (!found) return undefined;
    transitionStatement.sync(db, requeuedTransition(p));
    return jobRowOf(found);
  });
}
