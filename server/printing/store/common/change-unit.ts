import type { Db } from '../../../storage/db.ts';
import { groupedSqliteTransaction } from '../../../storage/prepared.ts';
import { insertOutboxRows, insertOutboxRowsNow } from '../../../webhooks/index.ts';
import type { ChangeOutbox, JobChange, JobChangeKind, JobRow } from '../queue-store.ts';
import { announceQueued, type StoreContext } from './store-context.ts';

/**
 * The unit of work of a batch of job changes, written once for every write of the queue
 * (through `batcher.ts`; PostgreSQL's claim calls it itself): the batch's statements (the changes and their history rows),
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

/**
 * The unit of work of the operations whose statements are several and whose changed jobs
 * are known only once written (a reprint, a claim given back, a lost claim released, the
 * sweep): `write` runs them in one transaction (or the larger unit of work `db` is) and
 * says what it changed; a job left queued is announced (`announceQueued`); the outbox rows
 * of all the changes, read from the subscriptions' cache (`JobChanges.outboxFor`, one read
 * a kind), go in one insert, in the order of the changes; once committed, each change is
 * announced. When nobody subscribes, no statement is sent for the outbox.
 */
export function inTransactionUnit<T>(
  context: StoreContext,
  db: Db,
  write: (trx: Db) => Promise<{ result: T; changes: readonly JobChange[] }>,
): Promise<T> {
  return context.storage.transaction(db, async (trx) => {
    const { result, changes } = await write(trx);
    // A job announced held is still queued: it is announced as the others (as it always was).
    for (const { row } of changes)
      if (row.status === 'queued') await announceQueued(context, trx, row);
    const changing = changes.map(({ kind, row }) => ({ kind, companyId: row.company_id }));
    const outbox = await outboxOf(context, trx, changing);
    await insertOutboxRows(trx, outbox.rowsOf(changes));
    announceCommitted(context, trx, outbox, changes);
    return result;
  });
}

/** What a batch will change: the kind of each change, and its job's company. */
export interface Changing {
  kind: JobChangeKind;
  companyId: number;
}

/**
 * The outbox of a batch's changes, read before they are written (`JobChanges.outboxFor`,
 * from the subscriptions' cache): one read when they are all of one kind (the usual
 * batch), else one a kind, their rows in the changes' order.
 */
export async function outboxOf(
  context: StoreContext,
  db: Db,
  changing: readonly Changing[],
): Promise<ChangeOutbox> {
  const kind = changing[0]?.kind;
  if (kind !== undefined && changing.every((change) => change.kind === kind))
    return context.changes.outboxFor(
      db,
      changing.map((change) => change.companyId),
      kind,
    );
  const byKind = new Map<JobChangeKind, number[]>();
  for (const change of changing)
    byKind.set(change.kind, [...(byKind.get(change.kind) ?? []), change.companyId]);
  const outboxes = new Map<JobChangeKind, ChangeOutbox>();
  for (const [ofKind, companies] of byKind) {
    const outbox = await context.changes.outboxFor(db, companies, ofKind);
    if (outbox.due) outboxes.set(ofKind, outbox);
  }
  const due = [...outboxes.values()];
  return {
    due: due.length > 0,
    rowsOf: (changes) =>
      due.length === 0
        ? []
        : changes.flatMap((change) => outboxes.get(change.kind)?.rowsOf([change]) ?? []),
    written: () => {
      for (const outbox of due) outbox.written();
    },
  };
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
