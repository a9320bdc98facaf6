import type { Logger } from 'pino';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { CommonQueueStore } from '../common/common-queue-store.ts';
import { jobsChannel } from '../queue-notices.ts';
import type {
  Cancel,
  ClaimRequest,
  ConfirmRequest,
  FailRequest,
  NewJob,
  Requeue,
} from '../queue-store.ts';
import { cancelJob } from './cancel-job.ts';
import { postgresClaim } from './claim-job.ts';
import { postgresConfirm } from './confirm-job.ts';
import { createJob } from './create-job.ts';
import { failJob } from './fail-job.ts';
import { PostgresJobNotifier } from './postgres-job-notifier.ts';
import { requeueJob } from './requeue-job.ts';

/**
 * The print queue on PostgreSQL (several server instances on one database). Its own: the
 * create, the claim, the confirm, the fail, the requeue and the cancel as one statement each, the claims and the confirms of
 * one turn of the event loop batched in one statement (create-job.ts, claim-job.ts,
 * claim-many.ts, confirm-job.ts, fail-job.ts, requeue-job.ts, cancel-job.ts), each in the unit of work of `../common/change-unit.ts`
 * (its outbox rows, when due, in the statement's transaction), and a claim whose
 * connection was lost given back (release-lost-claim.ts); the rest is the SQL both
 * databases share (`../common/`). Every instance's waiting agents hear of jobs queued
 * anywhere through `PostgresJobNotifier` (LISTEN/NOTIFY).
 */
export class PostgresQueueStore extends CommonQueueStore {
  /** The notifier of this instance's waiting agents (docs/printing.md, "Notifier"). */
  openNotifier(log: Logger): PostgresJobNotifier {
    const { storage } = this.context;
    const listener = storage.listener;
    if (!listener) throw new Error('a PostgreSQL storage has a LISTEN connection');
    const notifier = new PostgresJobNotifier(
      listener,
      (payload) => notify(storage.db, jobsChannel, payload),
      log,
    );
    // From now on a job that an agent waiting here will take is announced here alone.
    this.context.waitersHere = notifier;
    return notifier;
  }

  create(db: Db, job: NewJob) {
    return createJob(this.context, db, job);
  }

  // One batcher per store: the calls of one turn on one database are one batch.
  readonly #claim = postgresClaim(this.context);
  readonly #confirm = postgresConfirm(this.context);

  claim(db: Db, request: ClaimRequest) {
    return this.#claim(db, request);
  }

  confirm(db: Db, request: ConfirmRequest) {
    return this.#confirm(db, request);
  }

  fail(db: Db, request: FailRequest) {
    return failJob(this.context, db, request);
  }

  requeue(db: Db, request: Requeue) {
    return requeueJob(this.context, db, request);
  }

  cancel(db: Db, request: Cancel) {
    return cancelJob(this.context, db, request);
  }
}
