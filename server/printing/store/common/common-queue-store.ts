import type { Logger } from 'pino';
import type { HistoryQuery } from '../../../../shared/printing.ts';
import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import type { JobNotifier } from '../../long-poll/job-notifier.ts';
import type {
  Cancel,
  ClaimGivenBack,
  ClaimRequest,
  ConfirmRequest,
  FailRequest,
  JobChanges,
  JobRow,
  LeaseExtension,
  NewJob,
  PrintQueueStore,
  Rendered,
  Reprint,
  Requeue,
  StoredClaim,
} from '../queue-store.ts';
import { type BatchUnits, batcher, guardedChange, newJobs } from './batcher.ts';
import { extendLeases } from './extend-leases.ts';
import { giveBackClaim } from './give-back-claim.ts';
import { listJobs, queuedRoutes, readJob, readTrail } from './read-jobs.ts';
import { readContent, recordRendering } from './record-rendering.ts';
import { reprintJob } from './reprint-job.ts';
import { type RequeueParams, requeueOperation } from './requeue-job.ts';
import type { StoreContext } from './store-context.ts';
import { sweepJobs } from './sweep-jobs.ts';

type Rows = (JobRow | undefined)[] | Promise<(JobRow | undefined)[]>;

/**
 * A database's SQL for the create and the guarded changes, in batch form (one row per input, in order;
 * undefined when the job was not in the state the change expects). The rest of their path
 * (the batch, its outbox, its unit of work, the announcements) is the same for both.
 */
export interface ChangeSql {
  create(db: Db, batch: NewJob[]): JobRow[] | Promise<JobRow[]>;
  confirm(db: Db, batch: ConfirmRequest[]): Rows;
  fail(db: Db, batch: FailRequest[]): Rows;
  requeue(db: Db, batch: RequeueParams[]): Rows;
  cancel(db: Db, batch: Cancel[]): Rows;
}

/**
 * What both stores run alike: the SQL of this folder, and the create, confirm, fail,
 * requeue and cancel through one batcher (`batcher.ts`) with each database's SQL
 * (`ChangeSql`) and units of work (`BatchUnits`). Each database's store extends it with its
 * own claim and notifier (`../sqlite/`, `../postgres/`).
 */
export abstract class CommonQueueStore implements PrintQueueStore {
  protected readonly context: StoreContext;
  readonly #create;
  readonly #confirm;
  readonly #fail;
  readonly #requeue;
  readonly #cancel;

  constructor(
    storage: Storage,
    changes: JobChanges,
    units: BatchUnits,
    sqlOf: (context: StoreContext) => ChangeSql,
  ) {
    const context: StoreContext = { storage, changes };
    this.context = context;
    const sql = sqlOf(context);
    // One batcher per store and operation: the calls of one turn on one database are one batch.
    this.#create = batcher(context, units, newJobs(sql.create));
    this.#confirm = batcher(context, units, guardedChange('printed', sql.confirm));
    this.#fail = batcher(context, units, guardedChange('failed', sql.fail));
    this.#requeue = batcher(context, units, requeueOperation(sql.requeue));
    this.#cancel = batcher(context, units, guardedChange('cancelled', sql.cancel));
  }

  abstract openNotifier(log: Logger): JobNotifier;
  abstract claim(db: Db, request: ClaimRequest): Promise<StoredClaim | undefined>;
  abstract newestEvent(db: Db, companyId: number): Promise<number>;

  create(db: Db, job: NewJob) {
    return this.#create(db, job);
  }

  confirm(db: Db, request: ConfirmRequest) {
    return this.#confirm(db, request);
  }

  fail(db: Db, request: FailRequest) {
    return this.#fail(db, request);
  }

  requeue(db: Db, request: Requeue) {
    return this.#requeue(db, request);
  }

  cancel(db: Db, request: Cancel) {
    return this.#cancel(db, request);
  }

  reprint(db: Db, reprint: Reprint) {
    return reprintJob(this.context, db, reprint);
  }

  giveBack(db: Db, claim: ClaimGivenBack) {
    return giveBackClaim(this.context, db, claim);
  }

  sweep(db: Db, now: string, heldSince: string | null) {
    return sweepJobs(this.context, db, now, heldSince);
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
