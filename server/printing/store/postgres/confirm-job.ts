import { sql } from 'kysely';
import { prepared } from '../../../storage/prepared.ts';
import { confirmUpdate } from '../common/confirm-update.ts';
import { historyFrom, type TransitionSql } from '../common/trail.ts';
import type { ConfirmRequest, JobRow } from '../queue-store.ts';
import { type HolderChanges, holderChangeRows, holderChangesText } from './holder-changes.ts';

/** The confirm's history row: the same message as SQLite's, `printed on PRINTER` or none. */
const printedHistory: TransitionSql = {
  from: `'claimed'`,
  to: `'printed'`,
  agent: '"agent_id"',
  message: `'printed on ' || nullif("printer", '')`,
  at: '"updated_at"',
};

/**
 * PostgreSQL: the holder's confirm and its event in one statement (on its own, autocommit:
 * one round trip instead of BEGIN, UPDATE, INSERT, COMMIT). The event is made
 * from the row the UPDATE returned, so it is written exactly when the job changed; a confirm
 * that changes nothing (not the holder, a repeat) returns no row, and the caller reads the
 * job to say why.
 */
const confirmInOneStatement = prepared<ConfirmRequest, JobRow>((db, p) =>
  db
    .with('confirmed', (qc) => confirmUpdate(qc, p))
    .with('event', () => sql.raw(`(${historyFrom('confirmed', printedHistory)})`))
    .selectFrom('confirmed')
    .selectAll('confirmed'),
);

const confirmMany: HolderChanges<ConfirmRequest> = {
  name: 'confirmed',
  expected: 'claimed',
  columns: [
    ['printer', 'printer', 'text'],
    ['now', 'at', 'text'],
  ],
  set: `"status" = 'printed', "printer" = "i"."printer", "printed_at" = "i"."at",
    "lease_expires_at" = null, "updated_at" = "i"."at"`,
  history: printedHistory,
};

/** The confirms of several agents in one statement (`holderChangesText`). */
export const confirmManyText = holderChangesText(confirmMany);

/**
 * PostgreSQL's confirms of one batch (`../common/batcher.ts`: agents that print steadily
 * confirm in bursts; the bench saw 3.3 confirms a turn on each of three busy instances), as
 * one statement. A confirm sent twice in one batch is answered the job both times (a repeat
 * is harmless).
 */
export const confirmRows = holderChangeRows(confirmInOneStatement, confirmManyText, confirmMany, {
  answers: () => true,
  once: false,
});
