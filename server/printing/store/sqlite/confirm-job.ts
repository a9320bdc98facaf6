import type { Db } from '../../../storage/db.ts';
import { inGroupUnit, oneChange } from '../common/change-unit.ts';
import { confirmStatement, printedTransition } from '../common/confirm-update.ts';
import type { StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { ConfirmRequest, JobRow } from '../queue-store.ts';

/**
 * SQLite's confirm: one conditional UPDATE, its event, and the outbox row when an endpoint
 * takes `print_job.printed`, synchronously, in the group commit of this turn's claims and
 * confirms (`inGroupUnit`). `undefined` when the agent does not hold the job claimed.
 */
export async function confirmJob(
  context: StoreContext,
  db: Db,
  request: ConfirmRequest,
): Promise<JobRow | undefined> {
  const unit = await oneChange(context, db, 'printed', request.companyId);
  return inGroupUnit(context, db, unit, () => {
    const row = confirmStatement.sync(db, request)[0];
    if (row) transitionStatement.sync(db, printedTransition(row, request));
    return row;
  });
}
