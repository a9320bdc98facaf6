import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { insertOutboxRows, type OutboxRow } from '../../../webhooks/index.ts';
import { jobsChannel, noticeOf, type WaitersHere } from '../queue-notices.ts';
import type { ChangeOutbox, JobChange, JobChangeKind, JobChanges, JobRow } from '../queue-store.ts';

/** What every store's operations work with: the storage, and where job changes are announced. */
export interface StoreContext {
  storage: Storage;
  changes: JobChanges;
  /**
   * The agents waiting in this process (PostgreSQL, once its notifier is open): a job one
   * of them will take is announced here alone. Unset (SQLite, the command line): every
   * queued job is announced to every process.
   */
  waitersHere?: WaitersHere;
}

/**
 * Finishes a change in its transaction (`trx`): a job left queued is announced
 * (`announceQueued`), the change's webhook outbox rows are written, and once the transaction
 * has committed the change is announced in this process (`JobChanges.committed`). The
 * operations that run a transaction of their own end here (reprint, give back; the sweep in
 * `finishChanges`); the create, claim, confirm, fail, requeue and cancel run in the unit of
 * work of `change-unit.ts`.
 */
export async function finishChange(
  context: StoreContext,
  trx: Db,
  change: JobChange,
): Promise<void> {
  const { storage, changes } = context;
  const { row } = change;
  if (row.status === 'queued') await announceQueued(context, trx, row);
  await changes.record(trx, change);
  storage.afterCommit(trx, () => changes.committed(change));
}

/**
 * `finishChange` for the many changes of one transaction (a sweep): the outbox rows of all
 * of them in one insert (by 200), in the order of `changes`, instead of one a change.
 */
export async function finishChanges(
  context: StoreContext,
  trx: Db,
  changes: readonly JobChange[],
): Promise<void> {
  const { storage } = context;
  for (const { row } of changes)
    if (row.status === 'queued') await announceQueued(context, trx, row);
  const byKind = new Map<JobChangeKind, JobChange[]>();
  for (const change of changes)
    byKind.set(change.kind, [...(byKind.get(change.kind) ?? []), change]);
  const written: ChangeOutbox[] = [];
  const rows: OutboxRow[] = [];
  for (const [kind, ofKind] of byKind) {
    const companies = ofKind.map(({ row }) => row.company_id);
    const outbox = await context.changes.outboxFor(trx, companies, kind);
    if (!outbox.due) continue;
    written.push(outbox);
    rows.push(...outbox.rowsOf(ofKind));
  }
  await insertOutboxRows(trx, rows);
  storage.afterCommit(trx, () => {
    for (const outbox of written) outbox.written();
    for (const change of changes) context.changes.committed(change);
  });
}

/**
 * A job queued in `trx`: to an agent of this process that waits for it, once committed
 * (`WaitersHere`), else to every process with the commit (NOTIFY; a no-op on SQLite).
 */
export async function announceQueued(
  { storage, waitersHere }: StoreContext,
  trx: Db,
  { company_id: companyId, route, id: jobId }: JobRow,
): Promise<void> {
  if (waitersHere?.takesHere(companyId, route)) {
    storage.afterCommit(trx, () => waitersHere.queuedHere(companyId, route));
    return;
  }
  await notify(trx, jobsChannel, noticeOf(companyId, route, jobId));
}
