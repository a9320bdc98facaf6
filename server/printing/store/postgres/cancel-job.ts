import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import { cancelledHistory, cancelUpdate } from '../common/cancel-job.ts';
import { inStatementUnit, oneChange } from '../common/change-unit.ts';
import type { StoreContext } from '../common/store-context.ts';
import { historyFrom } from '../common/trail.ts';
import type { Cancel, JobRow } from '../queue-store.ts';

/** The cancel and its event in one statement. */
const cancelInOneStatement = prepared<Cancel, JobRow>((db, p) =>
  db
    .with('cancelled', (qc) => cancelUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('cancelled', cancelledHistory)})`))
    .selectFrom('cancelled')
    .selectAll('cancelled'),
);

/**
 * PostgreSQL's cancel: one statement, with the outbox row when an endpoint takes
 * `print_job.cancelled` (`inStatementUnit`). `undefined` when the job was no longer queued.
 */
export async function cancelJob(
  context: StoreContext,
  db: Db,
  request: Cancel,
): Promise<JobRow | undefined> {
  const unit = await oneChange(context, db, 'cancelled', request.companyId);
  return inStatementUnit(
    context,
    db,
    unit,
    async (unit) => (await cancelInOneStatement(unit, request))[0],
  );
}
