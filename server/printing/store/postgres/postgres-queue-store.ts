import type { Logger } from 'pino';
import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { notify } from '../../../storage/notify.ts';
import { statementUnits } from '../common/batcher.ts';
import { CommonQueueStore } from '../common/common-queue-store.ts';
import type { StoreContext } from '../common/store-context.ts';
import { jobsChannel } from '../queue-notices.ts';
import type { ClaimRequest, JobChanges, NewJob } from '../queue-store.ts';
import { cancelRows } from './cancel-job.ts';
import { postgresClaim } from './claim-job.ts';
import { confirmRows } from './confirm-job.ts';
import { createRows } from './create-job.ts';
import { failRows } from './fail-job.ts';
import { newestEvent } from './newest-event.ts';
import { PostgresJobNotifier } from './postgres-job-notifier.ts';
import { requeueRows } from './requeue-job.ts';

/** PostgreSQL's SQL of the create and the guarded changes, each with its event in one statement. */
const postgresChanges = (context: StoreContext) => ({
  create: (db: Db, batch: NewJob[]) => createRows(context, db, batch),
  confirm: confirmRows,
  fail: failRows,
  requeue: (db: Db, batch: Parameters<typeof requeueRows>[2]) => requeueRows(context, db, batch),
  cancel: cancelRows,
});

/**
 * The print queue on PostgreSQL (several server instances on one database). Its own: the
 * create, the claim, the confirm, the fail, the requeue and the cancel as one statement
 * each (create-job.ts, claim-job.ts, claim-many.ts, confirm-job.ts, fail-job.ts,
 * requeue-job.ts, cancel-job.ts); the claims, the confirms and the fails of one turn of the
 * event loop batched in one statement; each in the unit of work of
 * `../common/change-unit.ts` (its outbox rows, when due, in the statement's transaction),
 * and a claim whose connection was lost given back (release-lost-claim.ts); the rest is
 * what both databases share (`../common/`). Every instance's waiting agents hear of jobs
 * queued anywhere through `PostgresJobNotifier` (LISTEN/NOTIFY).
 */
export class PostgresQueueStore extends CommonQueueStore {
  constructor(storage: Storage, changes: JobChanges) {
    super(storage, changes, statementUnits, postgresChanges);
  }

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

  // One batcher per store: the claims of one turn on one database are one batch.
  readonly #claim = postgresClaim(this.context);

  claim(db: Db, request: ClaimRequest) {
    return this.#claim(db, request);
  }

  newestEvent(db: Db, companyId: number) {
    return newestEvent(db, companyId);
  }
}
