import type { Db } from '../../../storage/db.ts';
import { groupedSqliteTransaction } from '../../../storage/prepared.ts';
import { insertOutboxRows, insertOutboxRowsNow } from '../../../webhooks/index.ts';
import type { ChangeOutbox, JobChange, JobChangeKind, JobRow } from '../queue-store.ts';
import type { StoreContext } from './store-context.ts';

/**
 * The unit of work of a batch of job changes, written once for every operation that takes
 * it (claim, confirm, create): the batch's statements (the changes and their history rows),
 * then the webhook outbox rows of what they changed, in one commit; once committed, each
 * change is announced (`JobChanges.committed`) and the dispatcher told of the rows. The
 * operation gives its SQL (`write`) and says which changes its result holds (`changesOf`);
 * it never asks whether anything subscribes.
 *
 * The outbox rows cost nothing when no endpoint takes the changes: `outbox` (read from the
 * subscriptions' cache before the unit begins) then has none to write, and no statement is
 * sent for them.
 */
export interface ChangeUnit<T> {
  outbox: ChangeOutbox;
  changesOf: (result: T) => JobChange[];
}

/**
 * The unit of one job's change of `kind` (a confirm, a fail, a requeue, a cancel): the
 * outbox of its company, and the change its row makes (none when the guarded write changed
 * nothing).
 */
export async function oneChange(
  context: StoreContext,
  db: Db,
  kind: JobChangeKind,
  companyId: number,
): Promise<ChangeUnit<JobRow | undefined>> {
  const outbox = await context.changes.outboxFor(db, [companyId], kind);
  return { outbox, changesOf: (row) => (row ? [{ kind, row }] : []) };
}

/**
 * PostgreSQL: `write` sends the batch's one statement. A statement is a unit of work of its
 * own (autocommit: one round trip); when outbox rows go with it, the statement and their
 * insert share a transaction (or the larger unit of work `db` already is).
 */
export async function inStatementUnit<T>(
  context: StoreContext,
  db: Db,
  unit: ChangeUnit<T>,
  write: (db: Db) => Promise<T>,
): Promise<T> {
  let changes: JobChange[] = [];
  const run = async (trx: Db): Promise<T> => {
    const result = await write(trx);
    changes = unit.changesOf(result);
    await insertOutboxRows(trx, unit.outbox.rowsOf(changes));
    return result;
  };
  const result =
    unit.outbox.due && !db.isTransaction
      ? await context.storage.transaction(db, run)
      : await run(db);
  announceCommitted(context, db, unit.outbox, changes);
  return result;
}

/**
 * SQLite: `write` runs its statements synchronously (`Prepared.sync`), outbox rows after
 * them, in the group commit of this turn's writes (`groupedSqliteTransaction`: no
 * transaction object or promise per change, one commit for the group). When the group
 * cannot take it (a larger unit of work is open, or another transaction holds the
 * connection), the same statements run in a transaction that waits for the connection.
 */
export async function inGroupUnit<T>(
  context: StoreContext,
  db: Db,
  unit: ChangeUnit<T>,
  write: () => T,
): Promise<T> {
  const run = () => {
    const result = write();
    const changes = unit.changesOf(result);
    insertOutboxRowsNow(db, unit.outbox.rowsOf(changes));
    return { result, changes };
  };
  const { result, changes } = await (groupedSqliteTransaction(db, run) ??
    context.storage.transaction(db, async () => run()));
  announceCommitted(context, db, unit.outbox, changes);
  return result;
}

/** Once `db`'s unit of work has committed (at once when it has): the changes announced. */
function announceCommitted(
  context: StoreContext,
  db: Db,
  outbox: ChangeOutbox,
  changes: readonly JobChange[],
): void {
  if (changes.length === 0) return;
  context.storage.afterCommit(db, () => {
    if (outbox.due) outbox.written();
    for (const change of changes) context.changes.committed(change);
  });
}

/** Each job a batch changed, once (a confirm sent twice in one batch prints once). */
export function changedOnce(
  kind: JobChangeKind,
  rows: readonly (JobRow | undefined)[],
): JobChange[] {
  const byId = new Map<number, JobRow>();
  for (const row of rows) if (row) byId.set(row.id, row);
  return [...byId.values()].map((row) => ({ kind, row }));
}
