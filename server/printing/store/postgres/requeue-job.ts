import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import { inStatementUnit, oneChange } from '../common/change-unit.ts';
import {
  jobRowOf,
  type RequeuedRow,
  type RequeueParams,
  requeuedHistory,
  requeueParams,
  requeueUpdate,
} from '../common/requeue-job.ts';
import { announceQueued, type StoreContext } from '../common/store-context.ts';
import { historyFrom } from '../common/trail.ts';
import type { JobRow, Requeue } from '../queue-store.ts';

/** The requeue and its event in one statement, the event made from the row it returned. */
const requeueInOneStatement = prepared<RequeueParams, RequeuedRow>((db, p) =>
  db
    .with('requeued', (qc) => requeueUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('requeued', requeuedHistory)})`))
    .selectFrom('requeued')
    .selectAll('requeued'),
);

/**
 * PostgreSQL's requeue (a retry, a held job given back by its agent): the UPDATE and its
 * event in one statement, then the job announced as queued (a NOTIFY in the same unit of
 * work, or once committed to an agent waiting here: `announceQueued`).
 */
export async function requeueJob(
  context: StoreContext,
  db: Db,
  request: Requeue,
): Promise<JobRow | undefined> {
  const p = requeueParams(request);
  const kind = request.waitReason ? 'released' : 'requeued';
  const unit = await oneChange(context, db, kind, p.companyId, request.waitReason);
  return inStatementUnit(context, db, unit, async (unit) => {
    const found = (await requeueInOneStatement(unit, p))[0];
    if (!found) return undefined;
    const row = jobRowOf(found);
    await announceQueued(context, unit, row);
    return row;
  });
}
