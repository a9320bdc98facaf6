import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import {
  jobRowOf,
  type RequeuedRow,
  type RequeueParams,
  requeuedHistory,
  requeueUpdate,
} from '../common/requeue-job.ts';
import { announceQueued, type StoreContext } from '../common/store-context.ts';
import { historyFrom } from '../common/trail.ts';
import type { JobRow } from '../queue-store.ts';

/** The requeue and its event in one statement, the event made from the row it returned. */
const requeueInOneStatement = prepared<RequeueParams, RequeuedRow>((db, p) =>
  db
    .with('requeued', (qc) => requeueUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('requeued', requeuedHistory)})`))
    .selectFrom('requeued')
    .selectAll('requeued'),
);

/**
 * PostgreSQL's requeues (a retry, a held job given back by its agent): the UPDATE and its
 * event in one statement each, then the job announced as queued (a NOTIFY in the same unit
 * of work, or once committed to an agent waiting here: `announceQueued`). A requeue runs in
 * the transaction in which its caller read the job, so its batch is always one.
 */
export async function requeueRows(
  context: StoreContext,
  db: Db,
  batch: RequeueParams[],
): Promise<(JobRow | undefined)[]> {
  const rows: (JobRow | undefined)[] = [];
  for (const p of batch) {
    const found = (await requeueInOneStatement(db, p))[0];
    const row = found && jobRowOf(found);
    if (row) await announceQueued(context, db, row);
    rows.push(row);
  }
  return rows;
}
