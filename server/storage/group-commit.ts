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
 * SQLite group commit: the short write transactions that start in one turn of the event
 * loop (the print queue's claims and confirms, one per request) run in one transaction,
 * committed once when that turn's I/O is done (`setImmediate`), and each caller's promise
 * settles only then: no answer leaves before its write is committed, as before.
 *
 * Why: with the agents' requests arriving together, each claim or confirm paid its own
 * `BEGIN IMMEDIATE` and `COMMIT` (the write lock's system calls, and the WAL frames of the
 * same few pages written again by every commit); a group pays them once
 * (docs/benchmarks.md, print queue).
 *
 * Each member runs in a savepoint: a member whose work throws undoes its own writes only,
 * and its caller's promise rejects at once; the others commit. A failed commit rejects
 * every member. Nothing else can interleave with the open group: the storage layer calls
 * `settle()` before any other use of the connection (a Kysely query, a transaction of its
 * own, a prepared statement outside the group), which commits the group first. So a read
 * outside the group never sees its uncommitted rows, and a transaction never lands inside
 * it.
 */
export class GroupCommit {
  readonly #link: SqliteLink;
  #open = false;
  /** A member's work is running: its own statements must not settle the group. */
  #working = false;
  #members: Member[] = [];

  constructor(link: SqliteLink) {
    this.#link = link;
  }

  /**
   * Runs `work` (synchronous statements only) in the open group, opening one when none is;
   * its value comes once the group has committed. `undefined`, running nothing, when the
   * connection is in a transaction that is not the group's (the caller takes its ordinary
   * path), or when called from a member's own work.
   */
  join<T>(work: () => T): Promise<T> | undefined {
    if (this.#working) return undefined;
    if (!this.#open) {
      if (this.#link.inTransaction) return undefined;
      this.#link.exec('begin immediate');
      this.#open = true;
      setImmediate(() => this.settle());
    }
    this.#link.exec('savepoint group_member');
    this.#working = true;
    let value: T;
    try {
      value = work();
    } catch (error) {
      this.#undoMember(error);
      return Promise.reject(error);
    } finally {
      this.#working = false;
    }
    this.#link.exec('release group_member');
    return new Promise<T>((resolve, reject) => {
      this.#members.push({ value, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /** Commits the open group now, if there is one (and no member's work is running). */
  settle(): void {
    if (!this.#open || this.#working) return;
    const members = this.#members;
    this.#members = [];
    this.#open = false;
    try {
      this.#link.exec('commit');
    } catch (error) {
      if (this.#link.inTransaction) this.#link.exec('rollback');
      for (const member of members) member.reject(error);
      return;
    }
    for (const member of members) member.resolve(member.value);
  }

  /**
   * A member's work threw: its savepoint is rolled back. Some errors (a full disk, an I/O
   * error) make SQLite roll back the whole transaction: then every member is lost, and
   * their callers hear why.
   */
  #undoMember(error: unknown): void {
    if (this.#link.inTransaction) {
      this.#link.exec('rollback to group_member');
      this.#link.exec('release group_member');
      return;
    }
    const members = this.#members;
    this.#members = [];
    this.#open = false;
    for (const member of members) member.reject(error);
  }
}
