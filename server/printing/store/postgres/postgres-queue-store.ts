import type { Logger } from 'pino';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { CommonQueueStore } from '../common/common-queue-store.ts';
import { jobsChannel } from '../queue-notices.ts';
import type { ClaimRequest, ConfirmRequest, NewJob } from '../queue-store.ts';
import { claimJob } from './claim-job.ts';
import { confirmJob } from './confirm-job.ts';
import { createJob } from './create-job.ts';
import { PostgresJobNotifier } from './postgres-job-notifier.ts';

/**
 * The print queue on PostgreSQL (several server instances on one database). Its own: the
 * create, the claim and the confirm as one statement each when no outbox row is due, the
 * claims and the confirms of one turn of the event loop batched in one statement
 * (create-job.ts, claim-job.ts, claim-many.ts, confirm-job.ts), and a claim whose
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

  claim(db: Db, request: ClaimRequest) {
    return claimJob(this.context, db, request);
  }

  confirm(db: Db, request: ConfirmRequest) {
    return confirmJob(this.context, db, request);
  }
}
