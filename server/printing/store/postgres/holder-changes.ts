import { CompiledQuery } from 'kysely';
import type { JobStatus } from '../../../../shared/printing.ts';
import type { Db } from '../../../storage/db.ts';
import { fieldArrays } from '../../../storage/per-turn.ts';
import { nameStatement } from '../../../storage/pg-named-statements.ts';
import type { Prepared } from '../../../storage/prepared.ts';
import { historyFrom, type TransitionSql } from '../common/trail.ts';
import type { JobRow } from '../queue-store.ts';

/** A change the holder of a claimed job makes (a confirm, a fail), as one input names it. */
interface HolderInput {
  jobId: number;
  companyId: number;
  agentUuid: string;
}

/** The statement of many holders' changes: its CTE's name, what it sets, its history. */
export interface HolderChanges<P extends HolderInput> {
  /** The CTE of the changed jobs. */
  name: string;
  /** The status the job must have. */
  expected: JobStatus;
  /** The input's columns after job, company and agent: its field, the column, its type. */
  columns: readonly (readonly [keyof P & string, string, 'integer' | 'text'])[];
  /** The SET list, over the input row `"i"`. */
  set: string;
  history: TransitionSql;
}

/**
 * The changes of several holders in one statement: each input row (job, company, agent,
 * then `columns`) is one change, made as the one-job statement makes it. A job sent twice
 * is updated once; an input row that matches no held job changes nothing. The rows are
 * found by id and the status is checked against a column of a materialized CTE: a literal
 * status, or a constant the planner can see through, lets it read the leases' partial index
 * whole (claim-many.ts; test/printing/postgres-batch-plans.test.ts).
 */
export function holderChangesText<P extends HolderInput>(c: HolderChanges<P>): string {
  const types = ['integer', 'integer', 'text', ...c.columns.map(([, , type]) => type)];
  const names = ['job_id', 'company_id', 'agent_id', ...c.columns.map(([, column]) => column)];
  const text = `with "input" as materialized (
  select *, '${c.expected}' as "expected"
  from unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
    as "i"(${names.map((name) => `"${name}"`).join(', ')})
), "${c.name}" as (
  update "print_jobs" as "j"
  set ${c.set}
  from "input" as "i"
  where "j"."id" = any($1::integer[]) and "j"."id" = "i"."job_id"
    and "j"."company_id" = "i"."company_id" and "j"."agent_id" = "i"."agent_id"
    and "j"."status" = "i"."expected"
  returning "j".*
), "event" as (
  ${historyFrom(c.name, c.history)}
)
select * from "${c.name}"`;
  nameStatement(text);
  return text;
}

/**
 * The holders' changes of one batch as one statement: `one` for a change alone, the
 * statement of many (`holderChangesText`) for several. A row answers the input it matched
 * (its holder, in its company, and `answers`); with `once`, only the first of a job sent
 * twice, as if they had come one after the other. Undefined: the change changed nothing
 * (not the holder, a repeat); the caller reads the job to say why.
 */
export function holderChangeRows<P extends HolderInput>(
  one: Prepared<P, JobRow>,
  manyText: string,
  many: HolderChanges<P>,
  { answers, once }: { answers: (row: JobRow, input: P) => boolean; once: boolean },
): (db: Db, batch: P[]) => Promise<(JobRow | undefined)[]> {
  const fields = ['jobId', 'companyId', 'agentUuid', ...many.columns.map(([field]) => field)];
  return async (db, batch) => {
    if (batch.length === 1) return [(await one(db, batch[0]!))[0]];
    const parameters = fieldArrays(batch, fields as (keyof P)[]);
    const { rows } = await db.executeQuery<JobRow>(CompiledQuery.raw(manyText, parameters));
    const byJob = new Map(rows.map((row) => [row.id, row]));
    return batch.map((input) => {
      const row = byJob.get(input.jobId);
      const mine =
        row?.company_id === input.companyId &&
        row.agent_id === input.agentUuid &&
        answers(row, input);
      if (!mine) return undefined;
      if (once) byJob.delete(input.jobId);
      return row;
    });
  };
}
