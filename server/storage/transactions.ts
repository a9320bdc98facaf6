import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.ts';

interface Scope {
  trx: Transaction<Database>;
  /** Run once the transaction has committed; dropped if it rolls back. */
  afterCommit: (() => void)[];
  /** Set when the transaction has ended: work started inside it (a timer) must not reuse it. */
  ended: boolean;
}

/**
 * Transactions that join the one already open in the same call chain. An operation says
 * "this must be atomic" with `run`; when it is called inside a larger unit of work (an
 * idempotent request stores its answer in the transaction of its write), it becomes part
 * of that unit instead of committing on its own. `current` is what `storage.db` answers
 * while a transaction is open, so that every query of the unit runs in it: on SQLite, with
 * its one connection, a query outside the open transaction would wait for it forever.
 *
 * `afterCommit` is for what must happen only once the change is visible to others (waking
 * the agents that wait for a job, the webhook dispatcher): inside a transaction it waits
 * for the outermost commit, and a rollback drops it.
 */
export class Transactions {
  private readonly scope = new AsyncLocalStorage<Scope>();
  private readonly root: Kysely<Database>;

  constructor(root: Kysely<Database>) {
    this.root = root;
  }

  /** The transaction open in this call chain, if any. */
  get current(): Transaction<Database> | undefined {
    const open = this.scope.getStore();
    return open && !open.ended ? open.trx : undefined;
  }

  async run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    const open = this.scope.getStore();
    if (open && !open.ended) return work(open.trx);
    let scope: Scope | undefined;
    let result: T;
    try {
      result = await this.root.transaction().execute((trx) => {
        scope = { trx, afterCommit: [], ended: false };
        return this.scope.run(scope, () => work(trx));
      });
    } finally {
      if (scope) scope.ended = true;
    }
    for (const hook of scope?.afterCommit ?? []) hook();
    return result;
  }

  /**
   * Runs `hook` after the open transaction commits, or now when none is open. Hooks must not
   * throw: the change they follow has committed, and its caller must hear that it did.
   */
  afterCommit(hook: () => void): void {
    const open = this.scope.getStore();
    if (open && !open.ended) open.afterCommit.push(hook);
    else hook();
  }
}

/**
 * Runs `work` in `db` when it is a transaction (the caller's larger unit of work), else in
 * a new transaction of `storage`: atomic either way, and the caller says which.
 */
export function inTransaction<T>(
  storage: { transaction<U>(work: (trx: Transaction<Database>) => Promise<U>): Promise<U> },
  db: Kysely<Database> | Transaction<Database>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : storage.transaction(work);
}
