import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { fieldArrays, perTurn } from '../../../storage/per-turn.ts';
import { nameStatement } from '../../../storage/pg-named-statements.ts';
import { prepared } from '../../../storage/prepared.ts';
import { changedOnce, inStatementUnit } from '../common/change-unit.ts';
import { confirmUpdate } from '../common/confirm-update.ts';
import type { StoreContext } from '../common/store-context.ts';
import { historyFrom, type TransitionSql } from '../common/trail.ts';
import type { ConfirmRequest, JobRow } from '../queue-store.ts';

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

/**
 * The confirms of several agents in one statement: each input row (job, company, agent,
 * printer, time) is one confirm, made exactly as `confirmInOneStatement` makes it. A job
 * sent twice is updated once; an input row that matches no held job changes nothing. The
 * rows are found by id and the status is checked against a column of a materialized CTE:
 * a literal `status = 'claimed'`, or a constant the planner can see through, lets it read
 * the leases' partial index whole (claim-many.ts; test/printing/postgres-batch-plans.test.ts).
 */
export const confirmManyText = `with "input" as materialized (
  select *, 'claimed' as "expected"
  from unnest($1::integer[], $2::integer[], $3::text[], $4::text[], $5::text[])
    as "i"("job_id", "company_id", "agent_id", "printer", "at")
), "confirmed" as (
  update "print_jobs" as "j"
  set "status" = 'printed', "printer" = "i"."printer", "printed_at" = "i"."at",
    "lease_expires_at" = null, "updated_at" = "i"."at"
  from "input" as "i"
  where "j"."id" = any($1::integer[]) and "j"."id" = "i"."job_id"
    and "j"."company_id" = "i"."company_id" and "j"."agent_id" = "i"."agent_id"
    and "j"."status" = "i"."expected"
  returning "j".*
), "event" as (
  ${historyFrom('confirmed', printedHistory)}
)
select * from "confirmed"`;
nameStatement(confirmManyText);

/**
 * The confirms of one batch, as one statement: `confirmInOneStatement` for a confirm alone,
 * `confirmManyText` for several. The row is undefined when the confirm changed nothing (not
 * the holder, or a repeat): the caller reads the job to say why.
 */
async function confirmRows(db: Db, batch: ConfirmRequest[]): Promise<(JobRow | undefined)[]> {
  if (batch.length === 1) return [(await confirmInOneStatement(db, batch[0]!))[0]];
  const { rows } = await db.executeQuery<JobRow>(
    CompiledQuery.raw(
      confirmManyText,
      fieldArrays(batch, ['jobId', 'companyId', 'agentUuid', 'printer', 'now']),
    ),
  );
  const byJob = new Map(rows.map((row) => [row.id, row]));
  return batch.map((values) => {
    const row = byJob.get(values.jobId);
    // The job's row answers only the confirm it matched: its holder, in its company.
    const mine = row?.company_id === values.companyId && row.agent_id === values.agentUuid;
    return mine ? row : undefined;
  });
}

/**
 * PostgreSQL's confirm: the confirms that arrive in the same turn of the event loop are one
 * batch (`perTurn`, docs/printing.md; agents that print steadily confirm in bursts: the
 * bench saw 3.3 confirms a turn on each of three busy instances), one statement with their
 * events, and the outbox rows when an endpoint takes `print_job.printed` (`inStatementUnit`).
 * Inside a transaction it runs there, alone. `undefined` when the agent does not hold the
 * job claimed (another agent, a repeat): the caller reads the job to say why.
 */
export function postgresConfirm(
  context: StoreContext,
): (db: Db, request: ConfirmRequest) => Promise<JobRow | undefined> {
  return perTurn(async (db: Db, batch: ConfirmRequest[]) => {
    const companies = batch.map((request) => request.companyId);
    const outbox = await context.changes.outboxFor(db, companies, 'printed');
    const changesOf = (rows: (JobRow | undefined)[]) => changedOnce('printed', rows);
    return inStatementUnit(context, db, { outbox, changesOf }, (unit) => confirmRows(unit, batch));
  });
}
