import type { HistoryQuery } from '../../../../shared/printing.ts';
import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { cancelJob } from '../common/cancel-job.ts';
import { createJob, reprintJob } from '../common/create-job.ts';
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
import { SqliteJobNotifier } from './sqlite-job-notifier.ts';

/**
 * The print queue on SQLite (one server process). Its own: the claim and the confirm join
 * the group commit synchronously when they can (claim-job.ts, confirm-job.ts); the rest is
 * the SQL both databases share (`../common/`). Agents waiting in this process hear of jobs
 * queued by another process (the CLI) through `SqliteJobNotifier`.
 */
export class SqliteQueueStore implements PrintQueueStore {
  readonly #context: StoreContext;

  constructor(storage: Storage, changes: JobChanges) {
    this.#context = { storage, changes };
  }

  /** The notifier of this process's waiting agents (docs/printing.md, "Notifier"). */
  openNotifier(): SqliteJobNotifier {
    return new SqliteJobNotifier(this.#context.storage);
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
