import type { Db } from '../../../storage/db.ts';
import { CommonQueueStore } from '../common/common-queue-store.ts';
import type {
  Cancel,
  ClaimRequest,
  ConfirmRequest,
  FailRequest,
  NewJob,
  Requeue,
} from '../queue-store.ts';
import { cancelJob } from './cancel-job.ts';
import { claimJob } from './claim-job.ts';
import { confirmJob } from './confirm-job.ts';
import { createJob } from './create-job.ts';
import { failJob } from './fail-job.ts';
import { requeueJob } from './requeue-job.ts';
import { SqliteJobNotifier } from './sqlite-job-notifier.ts';

/**
 * The print queue on SQLite (one server process). Its own: the create, the claim, the
 * confirm, the fail, the requeue and the cancel, synchronously in the group commit (create-job.ts, claim-job.ts,
 * confirm-job.ts, fail-job.ts, requeue-job.ts, cancel-job.ts, with `../common/change-unit.ts`); the rest is
 * the SQL both databases share (`../common/`). Agents waiting in this process hear of jobs
 * queued by another process (the CLI) through `SqliteJobNotifier`.
 */
export class SqliteQueueStore extends CommonQueueStore {
  /** The notifier of this process's waiting agents (docs/printing.md, "Notifier"). */
  openNotifier(): SqliteJobNotifier {
    return new SqliteJobNotifier(this.context.storage);
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
