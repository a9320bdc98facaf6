import type { Logger } from 'pino';
import type { ServerConfig, TestFault } from '../config.ts';
import { type Storage, violatesUnique } from '../storage/database.ts';
import { type Clock, isoNow } from '../time.ts';
import {
  deleteKey,
  findKey,
  type KeyRow,
  type KeyScope,
  type StoredAnswer,
  saveKey,
  storedAnswerOf,
  tryLockKey,
} from './stored-answers.ts';
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
   * its answer; or answers what the key already says (replay, in flight, reused).
   */
  async once<A>(
    scope: KeyScope,
    fingerprint: string,
    work: () => Promise<Attempt<A>>,
  ): Promise<Outcome<A>> {
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
    work: () => Promise<Attempt<A>>,
  ): Promise<Outcome<A>> {
    const { storage, clock, config } = this.deps;
    const now = clock.now();
    const stamp = isoNow(now);
    let expired: KeyRow | undefined;
    /** What an earlier use of the key says, or undefined when it is free (or expired). */
    const verdictOf = (row: KeyRow | undefined): Outcome<A> | undefined => {
      if (!row) return undefined;
      if (row.expires_at <= stamp) {
        expired = row;
        return undefined;
      }
      if (row.fingerprint !== fingerprint) return { kind: 'reused' };
      return { kind: 'replayed', stored: storedAnswerOf(row) };
    };
    // SQLite: one server process, and the key is in `running`, so nobody else can store
    // it meanwhile; reading it before the transaction keeps that transaction as it was.
    if (storage.dialect === 'sqlite') {
      const verdict = verdictOf(await findKey(storage.db, scope));
      if (verdict) return verdict;
    }
    try {
      const outcome = await storage.transaction(async (trx): Promise<Outcome<A>> => {
        if (storage.dialect === 'postgres') {
          if (!(await tryLockKey(trx, scope))) return { kind: 'in_flight' };
          const verdict = verdictOf(await findKey(trx, scope));
          if (verdict) return verdict;
        }
        if (expired) await deleteKey(trx, expired.id);
        const attempt = await work();
        if (!attempt.stored) throw new Undone(attempt.answer);
        const expiresAt = isoNow(new Date(now.getTime() + config.idempotencyTtlSeconds * 1000));
        await saveKey(trx, scope, fingerprint, attempt.stored, stamp, expiresAt);
        this.testFault('kill-before-idempotent-commit');
        return { kind: 'ran', answer: attempt.answer };
      });
      if (outcome.kind === 'ran') this.testFault('kill-after-idempotent-commit');
      return outcome;
    } catch (error) {
      if (error instanceof Undone) return { kind: 'ran', answer: error.answer as A };
      if (violatesUnique(error, 'idempotency_keys', ['company_id', 'operation', 'key'])) {
        return { kind: 'in_flight' };
      }
      throw error;
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
