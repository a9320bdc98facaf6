/** What a group commit needs of the SQLite connection it runs on. */
export interface SqliteLink {
  /** Whether a transaction is open on the connection (better-sqlite3's `inTransaction`). */
  readonly inTransaction: boolean;
  /** Runs SQL without parameters or result (`BEGIN`, `SAVEPOINT`, `COMMIT`). */
  exec(sql: string): void;
}

interface Member {
  value: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * SQLite group commit: the write transactions that start in one turn of the event loop
 * (one per request: a claim, a confirm, a create) run in one transaction, committed once
 * when that turn's I/O is done (`setImmediate`), and each caller's promise settles only
 * then: no answer leaves before its write is committed, as before.
 *
 * Why: requests arrive together, and each transaction paid its own `BEGIN IMMEDIATE` and
 * `COMMIT` (the write lock's system calls, and the WAL frames of the same few pages
 * written again by every commit); a group pays them once (docs/storage.md; `bench/printing.ts`
 * and `npm run bench`'s creates measure it).
 *
 * Members come one at a time. An asynchronous one (`begin` … `end`, a Kysely transaction,
 * see sqlite-driver.ts) holds the connection's lock until it ends, in a savepoint: when it
 * fails it undoes its own writes only, its caller hears at once, and the others commit. A
 * synchronous one (`join`, the print queue's claim and confirm) runs whole within the call
 * and has no savepoint (SAVEPOINT, RELEASE and the pages they keep were 3–4 % of the
 * queue's CPU): its statements fail only when the database does (a full disk, an I/O
 * error, where SQLite may roll the transaction back anyway), so when its work throws the
 * whole group is rolled back and every member hears the error; nothing half-done is
 * committed. A failed commit rejects every member. Nothing else interleaves
 * with the open group: a prepared read joins it as a member (its rows come at the commit,
 * prepared.ts), and the storage layer calls `settle()` before any other use of the
 * connection (a query outside a transaction, a transaction of its own), which commits the
 * group first. So nothing outside the group reads its uncommitted rows, and no transaction
 * lands inside it.
 */
export class GroupCommit {
  readonly #link: SqliteLink;
  #open = false;
  /** A member is running: its own statements must not settle the group. */
  #busy = false;
  #scheduled = false;
  #members: Member[] = [];

  constructor(link: SqliteLink) {
    this.#link = link;
  }

  /**
   * Whether the group's transaction is open. On this connection every transaction is the
   * group's: the storage layer begins no other, and `#openGroup` refuses to begin while one
   * it did not begin is open. So this answers "is a transaction open?" without asking
   * SQLite (a native call, ~1.5 % of the read's CPU).
   */
  get open(): boolean {
    return this.#open;
  }

  /** Whether a member runs now: its statements hold the connection (no native call asks). */
  get running(): boolean {
    return this.#busy;
  }

  /**
   * Runs `work` (synchronous statements only) as a member of the open group, opening one
   * when none is; its value comes once the group has committed. `undefined`, running
   * nothing, when the connection is in a transaction that is not the group's, or while
   * another member runs (the caller takes its ordinary path). `work` has no savepoint: if it
   * throws, the group is rolled back and every member of it rejected with that error.
   */
  join<T>(work: () => T): Promise<T> | undefined {
    if (this.#busy || (!this.#open && this.#link.inTransaction)) return undefined;
    this.#openGroup();
    this.#busy = true;
    let value: T;
    try {
      value = work();
    } catch (error) {
      // No savepoint to go back to: the whole group is undone.
      this.#busy = false;
      this.#open = false;
      this.#fail(this.#take(), error);
      return Promise.reject(error);
    }
    this.#busy = false;
    return this.#member(value);
  }

  /**
   * Starts a member that runs over several turns (the caller holds the connection's lock
   * until `end` or `undo`): opens the group when none is open, then the member's savepoint.
   */
  begin(): void {
    this.#openGroup();
    this.#link.exec('savepoint group_member');
    this.#busy = true;
  }

  /** Ends the running member: its writes join the group; `value` comes once it commits. */
  end<T>(value: T): Promise<T> {
    this.#busy = false;
    this.#link.exec('release group_member');
    return this.#member(value);
  }

  #openGroup(): void {
    if (this.#open) return;
    if (this.#link.inTransaction) throw new Error('another transaction holds the connection');
    this.#link.exec('begin immediate');
    this.#open = true;
    this.#schedule();
  }

  #member<T>(value: T): Promise<T> {
    this.#schedule();
    return new Promise<T>((resolve, reject) => {
      this.#members.push({ value, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * The group is lost (a synchronous member threw, SQLite rolled the transaction back, the
   * commit failed): rolls back what SQLite still holds, and every member hears why. Runs
   * from a timer too, so nothing may escape.
   */
  #fail(members: Member[], error: unknown): void {
    try {
      if (this.#link.inTransaction) this.#link.exec('rollback');
    } catch {
      // The connection is gone or broken: the next use reports it.
    }
    for (const member of members) member.reject(error);
  }

  /**
   * The running member failed: its savepoint is rolled back. Some errors (a full disk, an
   * I/O error) make SQLite roll back the whole transaction: then every member is lost, and
   * their callers hear why.
   */
  undo(error: unknown): void {
    this.#busy = false;
    if (this.#link.inTransaction) {
      this.#link.exec('rollback to group_member');
      this.#link.exec('release group_member');
      // The group's commit may have come while this member ran, and waited for it.
      this.#schedule();
      return;
    }
    this.#open = false;
    this.#fail(this.#take(), error);
  }

  /** Commits the open group now, if there is one and no member is running. */
  settle(): void {
    if (!this.#open || this.#busy) return;
    const members = this.#take();
    this.#open = false;
    try {
      this.#link.exec('commit');
    } catch (error) {
      this.#fail(members, error);
      return;
    }
    for (const member of members) member.resolve(member.value);
  }

  /** Commits once this turn's I/O is done (and, should a member still run then, after it). */
  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.settle();
    });
  }

  #take(): Member[] {
    const members = this.#members;
    this.#members = [];
    return members;
  }
}
