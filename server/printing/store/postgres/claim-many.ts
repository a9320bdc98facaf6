import { CompiledQuery, createQueryId, PostgresQueryCompiler, type RawBuilder, sql } from 'kysely';
import type { Db } from '../../../storage/db.ts';
import { fieldArrays } from '../../../storage/per-turn.ts';
import { nameStatement } from '../../../storage/pg-named-statements.ts';
import { claimable, queueOrder } from '../common/queue-order.ts';
import { claimedHistory, historyFrom } from '../common/trail.ts';
import type { ClaimRequest, JobRow } from '../queue-store.ts';

const compiler = new PostgresQueryCompiler();

/** A fragment without parameters, as the text of this statement written out. */
function textOf(fragment: RawBuilder<unknown>): string {
  const compiled = compiler.compileQuery(fragment.toOperationNode(), createQueryId());
  if (compiled.parameters.length > 0) throw new Error('a fragment of text takes no parameters');
  return compiled.sql;
}

/** The queue's rule (../common/queue-order.ts) over this statement's columns. */
const claimableText = (job: string, company: string, now: string) =>
  textOf(claimable(job, sql.raw<number>(company), sql.raw<string>(now)));
const queueOrderText = (job: string) => textOf(queueOrder(job));

/** A claimed job's row with its claim event's id and its document's content. */
export type ClaimRow = JobRow & { event_id: number; document_content: Buffer };

/**
 * The claims of several agents in one statement (PostgreSQL), its picks made of the queue's
 * rule (../common/queue-order.ts). Each agent takes from the
 * route the one-agent claim's first try takes from (claim-job.ts, `pick`):
 * the route of its best queued job. The agents that chose the same route of a company are
 * one group: a single scan takes as many of that route's jobs as the group has agents,
 * in queue order, passing over the jobs other transactions hold (`SKIP LOCKED`), and the
 * group's agents get them in call order.
 *
 * Each group's scan runs to its end (the window's sort reads it whole) before any of its
 * jobs is updated; groups scan different rows. A scan run after this statement's own
 * updates would pass over those rows too (PostgreSQL skips a row the same statement
 * changed) and count wrong: an `OFFSET` per agent, tried first, did.
 *
 * The `UPDATE` finds its rows by id (`= any(array(...))`) and checks the status against a
 * column of a materialized CTE: with `status = 'queued'` written out (or a constant the
 * planner sees through), it could take the queue's partial index and read every queued job
 * (seen under the generic plan, with the statistics of a table filled a moment before: a
 * bitmap scan of 27,933 rows, 33.8 ms a statement against 2.5 ms). Tested in
 * test/printing/postgres-batch-plans.test.ts.
 *
 * An agent left without a job (its route had fewer free jobs than its group had agents)
 * takes the one-agent claim after this statement, which also looks at its other routes.
 */
export const claimManyText = `with "agents" as (
  select * from unnest($1::integer[], $2::integer[], $3::text[], $4::text[], $5::text[])
    with ordinality as "a"("company_id", "agent_row_id", "agent_uuid", "now", "lease", "n")
), "routed" as (
  select "a".*, (
    select "r"."name" from "print_routes" as "r"
    inner join "print_jobs" as "j" on "j"."id" = (
      select "c"."id" from "print_jobs" as "c"
      where ${claimableText('c', '"a"."company_id"', '"a"."now"')}
        and "c"."route" = "r"."name"
      order by ${queueOrderText('c')} limit 1
    )
    where "r"."agent_id" = "a"."agent_row_id" and "r"."enabled" = 1
    order by ${queueOrderText('j')} limit 1
  ) as "route"
  from "agents" as "a"
), "ranked" as (
  select "routed".*,
    row_number() over (partition by "company_id", "route" order by "n") as "rank"
  from "routed" where "route" is not null
), "picks" as materialized (
  select "g"."company_id", "g"."route", "j"."id" as "job_id",
    row_number() over (
      partition by "g"."company_id", "g"."route" order by ${queueOrderText('j')}
    ) as "rank"
  from (
    select "company_id", "route", count(*) as "size", max("now") as "now"
    from "ranked" group by "company_id", "route"
  ) as "g"
  cross join lateral (
    select "c"."id", "c"."priority" from "print_jobs" as "c"
    where ${claimableText('c', '"g"."company_id"', '"g"."now"')}
      and "c"."route" = "g"."route"
    order by ${queueOrderText('c')} limit "g"."size"
    for update skip locked
  ) as "j"
), "picked" as materialized (
  select "ranked".*, "picks"."job_id", 'queued' as "expected" from "ranked"
  left join "picks" on "picks"."company_id" = "ranked"."company_id"
    and "picks"."route" = "ranked"."route" and "picks"."rank" = "ranked"."rank"
), "claimed" as (
  update "print_jobs" as "j"
  set "status" = 'claimed', "agent_id" = "p"."agent_uuid", "claimed_at" = "p"."now",
    "lease_expires_at" = "p"."lease", "updated_at" = "p"."now", "attempts" = "j"."attempts" + 1
  from "picked" as "p"
  where "j"."id" = any(array(select "job_id" from "picked")) and "j"."id" = "p"."job_id"
    and "j"."status" = "p"."expected"
  returning "j".*, "p"."n" as "claimed_position"
), "event" as (
  ${historyFrom('claimed', claimedHistory, '"id", "job_id"')}
)
select "p"."n" as "batch_position", "claimed".*, "event"."id" as "event_id",
  "d"."content" as "document_content"
from "picked" as "p"
left join "claimed" on "claimed"."claimed_position" = "p"."n"
left join "event" on "event"."job_id" = "claimed"."id"
left join "print_documents" as "d" on "d"."id" = "claimed"."document_id"`;
nameStatement(claimManyText);

/** What the statement made of one agent's claim. */
export type ManyClaim =
  | { kind: 'claimed'; row: ClaimRow }
  /** Nothing is queued on any of its routes: the one-agent claim would find nothing either. */
  | { kind: 'nothing' }
  /** Its job went to another agent, or every job of its best route is held: try alone. */
  | { kind: 'missed' };

type ManyRow = { batch_position: string; claimed_position: string | null } & (
  | ClaimRow
  | { id: null }
);

/** Runs the claims of `batch` in one statement: what became of each, in batch order. */
export async function claimMany(db: Db, batch: ClaimRequest[]): Promise<ManyClaim[]> {
  const { rows } = await db.executeQuery<ManyRow>(
    CompiledQuery.raw(
      claimManyText,
      fieldArrays(batch, ['companyId', 'agentRowId', 'agentUuid', 'now', 'lease']),
    ),
  );
  const claims: ManyClaim[] = batch.map(() => ({ kind: 'nothing' }));
  for (const { batch_position: position, claimed_position: _, ...row } of rows) {
    claims[Number(position) - 1] =
      row.id === null ? { kind: 'missed' } : { kind: 'claimed', row: row as ClaimRow };
  }
  return claims;
}
