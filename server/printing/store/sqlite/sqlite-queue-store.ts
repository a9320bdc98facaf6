import type { Storage } from '../../../storage/database.ts';
import type { Db } from '../../../storage/db.ts';
import { batcher, groupUnits } from '../common/batcher.ts';
import { CommonQueueStore } from '../common/common-queue-store.ts';
import type { ClaimRequest, JobChanges } from '../queue-store.ts';
import { sqliteClaim } from './claim-job.ts';
import { sqliteChanges } from './guarded-changes.ts';
import { NewestEvents } from './newest-events.ts';
import { SqliteJobNotifier } from './sqlite-job-notifier.ts';

/**
 * The print queue on SQLite (one server process). Its own: the claim (claim-job.ts) and
 * the SQL of the create, the confirm, the fail, the requeue and the cancel
 * (create-job.ts, guarded-changes.ts), all written synchronously in the group commit of the turn's
 * writes (`../common/change-unit.ts`, `../common/batcher.ts`); the rest is what both
 * databases share (`../common/`). Agents waiting in this process hear of jobs queued by
 * another process (the CLI) through `SqliteJobNotifier`.
 */
export class SqliteQueueStore extends CommonQueueStore {
  constructor(storage: Storage, changes: JobChanges) {
    super(storage, changes, groupUnits, () => sqliteChanges);
  }

  /** The notifier of this process's waiting agents (docs/printing.md, "Notifier"). */
  openNotifier(): SqliteJobNotifier {
    return new SqliteJobNotifier(this.context.storage);
  }

  readonly #claim = batcher(this.context, groupUnits, sqliteClaim);

  claim(db: Db, request: ClaimRequest) {
    return this.#claim(db, request);
  }

  readonly #newest = new NewestEvents();

  newestEvent(db: Db, companyId: number) {
    return this.#newest.of(db, companyId);
  }
}
