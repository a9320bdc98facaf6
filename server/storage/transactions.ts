import type { Kysely, Transaction } from 'kysely';
import type { Db } from './db.ts';
import type { Database } from './schema.ts';

/** An open transaction's hooks, run once it has committed. */
interface Scope {
  afterCommit: (() => void)[];
}

/**
 * The storage's transactions, passed explicitly as values (Kysely's `trx`): a reader sees
 * at each call which statements share a commit.
 *
 * `run(db, work)` runs `work` in `db` when `db` is one of these transactions (the caller's
 * larger unit of work: an idempotent request stores its answer in the transaction of its
 * write), and in a new transaction when `db` is the database. `afterCommit(db, hook)` ties
 * a hook to `db`'s transaction: it runs after that transaction commits and is dropped if it
 * rolls back; given the database, it runs at once. A transaction that has ended (a timer
 * started inside it fires later) is no longer one of these: using it for a hook fails loudly.
 */
export class Transactions {
  readonly #root: Kysely<Database>;
  readonly #open = new WeakMap<Transaction<Database>, Scope>();

  constructor(root: Kysely<Database>) {
    this.#root = root;
  }

  async run<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    if (db.isTransaction) {
      const trx = db as Transaction<Database>;
      this.#scopeOf(trx); // It must still be open.
      return work(trx);
    }
    const scope: Scope = { afterCommit: [] };
    let opened: Transaction<Database> | undefined;
    let result: T;
    try {
      result = await this.#root.transaction().execute((trx) => {
        opened = trx;
        this.#open.set(trx, scope);
        return work(trx);
      });
    } finally {
      if (opened) this.#open.delete(opened);
    }
    for (const hook of scope.afterCommit) hook();
    return result;
  }

  /**
   * Runs `hook` after `db`'s transaction commits, or now when `db` is the database. Hooks
   * must not throw: the change they follow has committed, and its caller must hear that it did.
   */
  afterCommit(db: Db, hook: () => void): void {
    if (!db.isTransaction) {
      hook();
      return;
    }
    this.#scopeOf(db as Transaction<Database>).afterCommit.push(hook);
  }

  #scopeOf(trx: Transaction<Database>): Scope {
    const scope = this.#open.get(trx);
    if (!scope) {
      throw new Error(
        'not an open transaction of this storage: it has ended, or it was not opened with storage.transaction',
      );
    }
    return scope;
  }
}
