import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import { inStatementUnit, oneChange } from '../common/change-unit.ts';
import { failedHistory, failUpdate } from '../common/fail-job.ts';
import type { StoreContext } from '../common/store-context.ts';
import { historyFrom } from '../common/trail.ts';
import type { FailRequest, JobRow } from '../queue-store.ts';

/** The holder's fail and its event in one statement (on its own, autocommit: one round trip). */
const failInOneStatement = prepared<FailRequest, JobRow>((db, p) =>
  db
    .with('failed', (qc) => failUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('failed', failedHistory)})`))
    .selectFrom('failed')
    .selectAll('failed'),
);

/**
 * PostgreSQL's fail: one statement, with the outbox row when an endpoint takes
 * `print_job.failed` (`inStatementUnit`). `undefined` when the agent does not hold the job
 * claimed: the caller reads the job to say why.
 */
export async function failJob(
  context: StoreContext,
  db: Db,
  request: FailRequest,
): Promise<JobRow | undefined> {
  const unit = await oneChange(context, db, 'failed', request.companyId);
  return inStatementUnit(
    context,
    db,
    unit,
    async (trx) => (await failInOneStatement(trx, request))[0],
  );
}
