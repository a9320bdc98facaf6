import { sql } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import { failedHistory, failUpdate } from '../common/fail-job.ts';
import { historyFrom } from '../common/trail.ts';
import type { FailRequest, JobRow } from '../queue-store.ts';
import { type HolderChanges, holderChangeRows, holderChangesText } from './holder-changes.ts';

/** The holder's fail and its event in one statement (on its own, autocommit: one round trip). */
const failInOneStatement = prepared<FailRequest, JobRow>((db, p) =>
  db
    .with('failed', (qc) => failUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('failed', failedHistory)})`))
    .selectFrom('failed')
    .selectAll('failed'),
);

const failMany: HolderChanges<FailRequest> = {
  name: 'failed',
  expected: 'claimed',
  columns: [
    ['message', 'message', 'text'],
    ['code', 'code', 'text'],
    ['now', 'at', 'text'],
  ],
  set: `"status" = 'failed', "error_message" = "i"."message", "error_code" = "i"."code",
    "lease_expires_at" = null, "updated_at" = "i"."at"`,
  history: failedHistory,
};

/** The fails of several agents in one statement (`holderChangesText`). */
export const failManyText = holderChangesText(failMany);

/**
 * PostgreSQL's fails of one batch (`../common/batcher.ts`), as one statement. A job failed
 * twice in one batch is failed by the first (as if they had come one after the other): the
 * row answers the fail whose message it carries, once.
 */
export const failRows = holderChangeRows(failInOneStatement, failManyText, failMany, {
  answers: (row, request) =>
    row.error_message === request.message && row.error_code === request.code,
  once: true,
});
