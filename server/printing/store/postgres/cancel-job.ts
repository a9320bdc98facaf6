import { sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { prepared } from '../../../storage/prepared.ts';
import { cancelledHistory, cancelUpdate } from '../common/cancel-job.ts';
import { historyFrom } from '../common/trail.ts';
import type { Cancel, JobRow } from '../queue-store.ts';

/** The cancel and its event in one statement (on its own, autocommit: one round trip). */
const cancelInOneStatement = prepared<Cancel, JobRow>((db, p) =>
  db
    .with('cancelled', (qc) => cancelUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('cancelled', cancelledHistory)})`))
    .selectFrom('cancelled')
    .selectAll('cancelled'),
);

/**
 * PostgreSQL's cancels, one statement each, in order. A cancel runs in the transaction in
 * which its caller read the job, so its batch is always one: no statement of many.
 * `undefined` when the job was no longer queued.
 */
export async function cancelRows(db: Db, batch: Cancel[]): Promise<(JobRow | undefined)[]> {
  const rows: (JobRow | undefined)[] = [];
  for (const request of batch) rows.push((await cancelInOneStatement(db, request))[0]);
  return rows;
}
