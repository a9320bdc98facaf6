import type { Db } from '../../../storage/db.ts';
import { groupedSqliteTransaction } from '../../../storage/prepared.ts';
import { confirmStatement, printedTransition } from '../common/confirm-update.ts';
import { finishChange, type StoreContext } from '../common/store-context.ts';
import { transitionStatement } from '../common/trail.ts';
import type { ConfirmRequest, JobRow } from '../queue-store.ts';

/**
 * SQLite's confirm: one conditional UPDATE and its event. Usually (no webhook endpoint takes
 * `print_job.printed`, the connection is free, no larger unit of work) synchronously,
 * straight on the connection, in the group commit of this turn's claims and confirms;
 * otherwise in a transaction that writes the outbox row too.
 */
export async function confirmJob(
  context: StoreContext,
  db: Db,
  request: ConfirmRequest,
): Promise<JobRow | undefined> {
  const recorded = context.changes.recordedInCommit(db, request.companyId, 'printed');
  if (recorded === false) {
    const grouped = groupedSqliteTransaction(db, () => {
      const row = confirmStatement.sync(db, request)[0];
      if (row) transitionStatement.sync(db, printedTransition(row, request));
      return row;
    });
    if (grouped) {
      const row = await grouped;
      if (row) context.changes.committed({ kind: 'printed', row });
      return row;
    }
  } else if (recorded instanceof Promise) {
    await recorded; // Loads the subscriptions: the next confirms know at once.
  }
  return context.storage.transaction(db, async (trx) => {
    // In the transaction that holds the connection: on SQLite, straight on it.
    const row = (await confirmStatement(trx, request))[0];
    if (!row) return undefined;
    await transitionStatement(trx, printedTransition(row, request));
    await finishChange(context, trx, { kind: 'printed', row });
    return row;
  });
}
