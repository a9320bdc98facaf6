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
import { extendLeases } from './extend-leases.ts';
import { giveBackClaim } from './give-back-claim.ts';
import { listJobs, queuedRoutes, readJob, readTrail } from './read-jobs.ts';
import { readContent, recordRendering } from './record-rendering.ts';
import { reprintJob } from './reprint-job.ts';
import type { StoreContext } from './store-context.ts';
import { sweepJobs } from './sweep-jobs.ts';

/**
 * What both stores run alike: the SQL of this folder. Each database's store extends it
 * with its own create, claim, confirm, fail, requeue, cancel and notifier (`../sqlite/`, `../postgres/`).
 */
export abstract class CommonQueueStore implements PrintQueueStore {
  protected readonly context: StoreContext;

  constructor(storage: Storage, changes: JobChanges) {
    this.context = { storage, changes };
  }

  abstract openNotifier(log: Logger): JobNotifier;
  abstract create(db: Db, job: NewJob): Promise<JobRow>;
  abstract claim(db: Db, request: ClaimRequest): Promise<StoredClaim | undefined>;
  abstract confirm(db: Db, request: ConfirmRequest): Promise<JobRow | undefined>;
  abstract fail(db: Db, request: FailRequest): Promise<JobRow | undefined>;
  abstract requeue(db: Db, request: Requeue): Promise<JobRow | undefined>;
  abstract cancel(db: Db, request: Cancel): Promise<JobRow | undefined>;

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
