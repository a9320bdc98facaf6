import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { ServerConfig, TestFault } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { type Clock, isoNow } from '../time.ts';
import { type StoredAnswer, toStoredAnswer } from './records.ts';
import { createKey, deleteKey, type KeyScope, readKey, tryLockKey } from './stored-answers.ts';

/** The work of a keyed request, in the transaction that stores its answer (`trx`). */
export type KeyedWork<A> = (trx: Transaction<Database>) => Promise<Attempt<A>>;

import { sweepKeys } from './sweep-keys.ts';

export interface IdempotencyDeps {
  storage: Storage;
  clock: Clock;
  config: ServerConfig;
  log: Logger;
}

/** What the work of a keyed request gives back: its answer, and what to store (null: nothing). */
export interface Attempt<A> {
  answer: A;
  /** The answer as stored and replayed; null when the request failed (its write is undone). */
  stored: StoredAnswer | null;
}

export type Outcome<A> =
  /** The work ran: its write and stored answer committed together, or nothing did. */
  | { kind: 'ran'; answer: A }
  /** The key was used before with the same payload: its stored answer. */
  | { kind: 'replayed'; stored: StoredAnswer }
  /** A request with this key is running now, here or on another instance. */
  | { kind: 'in_flight' }
  /** The key was used before with another payload. */
  | { kind: 'reused' };

/** How often expired keys are deleted. */
export const keySweepIntervalMs = 60_000;

/** Rolls back the work of a request whose key was stored meanwhile or before. */
const keyTaken = new Error('idempotency key taken');

/** Rolls the transaction of a failed attempt back, carrying its answer out. */
class Undone<A> {
  readonly answer: A;
  constructor(answer: A) {
    this.answer = answer;
  }
}

/**
 * Idempotency keys (docs/http.md): a keyed request runs once; its answer is stored in the
 * transaction of its write, so that the two commit together or not at all, and a retry
 * with the same key replays it. While it runs, the same key is refused (409):
 * - in this process, by the set of keys running here;
 * - across PostgreSQL instances, by a transaction-scoped advisory lock on the key, taken
 *   (without waiting) at the start of the request's transaction. It is released by the
 *   commit, after which the stored answer is visible; a crashed instance's lock goes with
 *   its connection, so no key is ever left "running". SQLite has one server process, so
 *   the set is enough there.
 * The unique index on the key is the final word: a second writer of one key rolls back.
 * The key is read only after the work, when storing it found it taken or the work failed:
 * a retry's work runs once more and is rolled back, and the stored answer is replayed.
 */
export class IdempotencyService {
  private readonly deps: IdempotencyDeps;
  private readonly running = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(deps: IdempotencyDeps) {
    this.deps = deps;
  }

  /** Sweeps once now, then on a timer. */
  async start(): Promise<void> {
    await this.sweep();
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweep().catch((error) =>
        this.deps.log.error({ err: error }, 'idempotency key sweep failed'),
      );
    }, keySweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping?.catch(() => undefined);
  }

  /** Deletes the keys past their time as of the clock's now; tests call it. */
  sweep(): Promise<number> {
    const run = sweepKeys(this.deps.storage, this.deps.clock.now());
    this.sweeping = run;
    const clear = () => {
      if (this.sweeping === run) this.sweeping = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  /**
   * Runs `work` once for this key and fingerprint, in one transaction with the storing of
   * its answer (`work` is given that transaction: its writes must go through it); or
   * answers what the key already says (replay, in flight, reused).
   */
  async once<A>(scope: KeyScope, fingerprint: string, work: KeyedWork<A>): Promise<Outcome<A>> {
    const name = `${scope.companyId}\n${scope.operation}\n${scope.key}`;
    if (this.running.has(name)) return { kind: 'in_flight' };
    this.running.add(name);
    try {
      return await this.run(scope, fingerprint, work);
    } finally {
      this.running.delete(name);
    }
  }

  private async run<A>(
    scope: KeyScope,
    fingerprint: string,
    work: KeyedWork<A>,
  ): Promise<Outcome<A>> {
    const { storage, clock, config } = this.deps;
    const now = clock.now();
    const stamp = isoNow(now);
    const expiresAt = isoNow(new Date(now.getTime() + config.idempotencyTtlSeconds * 1000));
    // A key is nearly always new, so the work runs first and its answer is stored with an
    // insert that does nothing when the key is taken; only then, or when the work fails,
    // is the key read (the work of a retry is rolled back, and the stored answer given).
    // One statement a request instead of two: the read cost a keyed write about 16 µs
    // (`BENCH_ONLY=Idempotency-Key npm run bench`).
    for (let attempt = 0; ; attempt++) {
      let failure: unknown;
      try {
        const outcome = await storage.transaction(storage.db, async (trx): Promise<Outcome<A>> => {
          // Across PostgreSQL instances; SQLite has one server process and `running`.
          if (!(await tryLockKey(trx, scope))) return { kind: 'in_flight' };
          const done = await work(trx);
          if (!done.stored) throw new Undone(done.answer);
          if (!(await createKey(trx, scope, fingerprint, done.stored, stamp, expiresAt))) {
            throw keyTaken;
          }
          this.testFault('kill-before-idempotent-commit');
          return { kind: 'ran', answer: done.answer };
        });
        if (outcome.kind === 'ran') this.testFault('kill-after-idempotent-commit');
        return outcome;
      } catch (error) {
        failure = error;
      }
      // The work failed, or the key was taken: what does an earlier use of the key say?
      // (When even that read fails, the failure of the request is the one to report.)
      const row = await readKey(storage.db, scope).catch(() => {
        throw failure;
      });
      if (row && row.expires_at > stamp) {
        if (row.fingerprint !== fingerprint) return { kind: 'reused' };
        return { kind: 'replayed', stored: toStoredAnswer(row) };
      }
      if (failure instanceof Undone) return { kind: 'ran', answer: failure.answer as A };
      if (failure !== keyTaken) throw failure;
      // Taken by a key past its time that the sweep has not reached yet (or by one swept
      // meanwhile): free it, and run again; taken a second time, by a writer we cannot see.
      if (attempt > 0) return { kind: 'in_flight' };
      if (row) await deleteKey(storage.db, row.id);
    }
  }

  /**
   * Tests only (`SHOPDESK_TEST_FAULT`, docs/http.md): dies here as by `kill -9`, so that a
   * test can show what a crash at this point leaves behind. Unset, it does nothing.
   */
  private testFault(point: TestFault): void {
    if (this.deps.config.testFault === point) process.kill(process.pid, 'SIGKILL');
  }
}
