import type { Db } from '../../../storage/db.ts';
import type { Prepared } from '../../../storage/prepared.ts';
import { cancelledTransition, cancelStatement } from '../common/cancel-job.ts';
import type { ChangeSql } from '../common/common-queue-store.ts';
import { confirmStatement, printedTransition } from '../common/confirm-update.ts';
import { failedTransition, failStatement } from '../common/fail-job.ts';
import { jobRowOf, requeuedTransition, requeueStatement } from '../common/requeue-job.ts';
import { type Transition, transitionStatement } from '../common/trail.ts';
import type { JobRow } from '../queue-store.ts';
import { createRows } from './create-job.ts';

/**
 * SQLite's SQL of the create (create-job.ts) and of the guarded changes: each input its UPDATE and, when it changed the job, its event:
 * synchronously, in the group commit of the turn's writes (`../common/batcher.ts`).
 */
function eachChange<P extends object, Row extends JobRow>(
  statement: Prepared<P, Row>,
  transition: (row: Row, input: P) => Transition,
) {
  return (db: Db, batch: P[]): (Row | undefined)[] =>
    batch.map((input) => {
      const row = statement.sync(db, input)[0];
      if (row) transitionStatement.sync(db, transition(row, input));
      return row;
    });
}

const requeueRows = eachChange(requeueStatement, (_row, p) => requeuedTransition(p));

export const sqliteChanges: ChangeSql = {
  create: createRows,
  confirm: eachChange(confirmStatement, printedTransition),
  fail: eachChange(failStatement, failedTransition),
  requeue: (db, batch) => requeueRows(db, batch).map((row) => row && jobRowOf(row)),
  cancel: eachChange(cancelStatement, (_row, p) => cancelledTransition(p)),
};
