import type { Logger } from 'pino';
import type { HistoryQuery } from '../../../../shared/printing.ts';
import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { cancelJob } from '../common/cancel-job.ts';
import { reprintJob } from '../common/create-job.ts';
import { extendLeases } from '../common/extend-leases.ts';
import { failJob } from '../common/fail-job.ts';
import { giveBackClaim } from '../common/give-back-claim.ts';
import { listJobs, queuedRoutes, readJob, readTrail } from '../common/read-jobs.ts';
import { readContent, recordRendering } from '../common/record-rendering.ts';
import { requeueJob } from '../common/requeue-job.ts';
import type { StoreContext } from '../common/store-context.ts';
import { sweepJobs } from '../common/sweep-jobs.ts';
import type {
  Cancel,
  ClaimGivenBack,
  ClaimRequest,
  ConfirmRequest,
  FailRequest,
  JobChanges,
  LeaseExtension,
  NewJob,
  PrintQueueStore,
  Rendered,
  Reprint,
  Requeue,
} from '../queue-store.ts';
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
export class PostgresQueueStore implements PrintQueueStore {
  readonly #context: StoreContext;

  constructor(storage: Storage, changes: JobChanges) {
    this.#context = { storage, changes };
  }

  /** The notifier of this instance's waiting agents (docs/printing.md, "Notifier"). */
  openNotifier(log: Logger): PostgresJobNotifier {
    const connect = this.#context.storage.dedicatedClient;
    if (!connect) throw new Error('a PostgreSQL storage opens dedicated connections');
    return new PostgresJobNotifier(connect, log);
  }

  create(db: Db, job: NewJob) {
    return createJob(this.#context, db, job);
  }

  reprint(db: Db, reprint: Reprint) {
    return reprintJob(this.#context, db, reprint);
  }

  claim(db: Db, request: ClaimRequest) {
    return claimJob(this.#context, db, request);
  }

  giveBack(db: Db, claim: ClaimGivenBack) {
    return giveBackClaim(this.#context, db, claim);
  }

  confirm(db: Db, request: ConfirmRequest) {
    return confirmJob(this.#context, db, request);
  }

  fail(db: Db, request: FailRequest) {
    return failJob(this.#context, db, request);
  }

  requeue(db: Db, request: Requeue) {
    return requeueJob(this.#context, db, request);
  }

  cancel(db: Db, request: Cancel) {
    return cancelJob(this.#context, db, request);
  }

  sweep(db: Db, now: string) {
    return sweepJobs(this.#context, db, now);
  }

  extendLeases(db: Db, request: LeaseExtension) {
    return extendLeases(db, request);
  }

  read(db: Db, companyId: number, jobId: number) {
    return readJob(db, companyId, jobId);
  }

  content(db: Db, companyId: number, jobId: number) {
    return readContent(db, companyId, jobId);
  }

  recordRendering(db: Db, rendered: Rendered) {
    return recordRendering(db, rendered);
  }

  trail(db: Db, jobId: number) {
    return readTrail(db, jobId);
  }

  list(db: Db, companyId: number, query: HistoryQuery) {
    return listJobs(db, companyId, query);
  }

  queuedRoutes(db: Db, companyId: number) {
    return queuedRoutes(db, companyId);
  }
}
