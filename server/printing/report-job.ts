import type { JobRecord } from '../../shared/printing.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import type { AgentRef } from './agents.ts';
import { recordJobEvent } from './job-events.ts';
import { getJobRow, type JobRow, toJobRecord } from './jobs.ts';

function notHolder(row: JobRow, agent: AgentRef, action: string) {
  if (row.status === 'claimed' && row.agent_id !== agent.uuid) {
    return new Conflict(
      `Job ${row.id} is held by another agent; only its holder may ${action} it.`,
    );
  }
  if (row.agent_id !== agent.uuid) {
    return new Conflict(`Job ${row.id} is ${row.status} and not held by this agent.`);
  }
  return new Conflict(`Job ${row.id} is ${row.status}: there is no claim to ${action}.`);
}

/** The confirm's UPDATE, compiled once: it runs once per printed job. */
const confirmStatement = prepared<
  { jobId: number; companyId: number; agentUuid: string; printer: string | null; now: string },
  JobRow
>((db, p) =>
  db
    .updateTable('print_jobs')
    .set({
      status: 'printed',
      printer: p.printer,
      printed_at: p.now,
      lease_expires_at: null,
      updated_at: p.now,
    })
    .where('id', '=', p.jobId)
    .where('company_id', '=', p.companyId)
    .where('agent_id', '=', p.agentUuid)
    .where('status', '=', 'claimed')
    .returningAll(),
);

const eventStatement = prepared<
  {
    companyId: number;
    jobId: number;
    from: JobRow['status'];
    to: JobRow['status'];
    agentUuid: string;
    message: string | null;
    at: string;
  },
  never
>((db, p) =>
  db.insertInto('print_job_events').values({
    company_id: p.companyId,
    job_id: p.jobId,
    from_status: p.from,
    to_status: p.to,
    agent_id: p.agentUuid,
    message: p.message,
    at: p.at,
  }),
);

/**
 * The holder says the job printed. The happy path is one conditional UPDATE; only when it
 * changes nothing do we read the job to say why (or to answer a repeat confirm with 200).
 * A claim whose lease has run out but that the sweep has not failed yet is still accepted:
 * the paper did come out.
 */
export async function confirmJob(
  storage: Storage,
  agent: AgentRef,
  jobId: number,
  printer: string | undefined,
  now: Date,
): Promise<JobRecord> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    // In the transaction that holds the connection: on SQLite, straight on it.
    const confirmed = await confirmStatement(trx, {
      jobId,
      companyId: agent.companyId,
      agentUuid: agent.uuid,
      printer: printer ?? null,
      now: stamp,
    });
    const row = confirmed[0];
    if (row) {
      await transition(trx, row, 'claimed', agent, printer ? `printed on ${printer}` : null);
      await recordJobEvent(storage, trx, 'print_job.printed', row);
      return toJobRecord(row);
    }
    const current = await getJobRow(trx, agent.companyId, jobId);
    // Confirming twice is harmless: the same answer, nothing changes.
    if (current.status === 'printed' && current.agent_id === agent.uuid) {
      return toJobRecord(current);
    }
    throw notHolder(current, agent, 'confirm');
  });
}

/** The holder says the job failed: `failed`, with the agent's message and code. */
export async function reportJobError(
  storage: Storage,
  agent: AgentRef,
  jobId: number,
  error: { message: string; code?: string | undefined },
  now: Date,
): Promise<JobRecord> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const row = await trx
      .updateTable('print_jobs')
      .set({
        status: 'failed',
        error_message: error.message,
        error_code: error.code ?? null,
        lease_expires_at: null,
        updated_at: stamp,
      })
      .where('id', '=', jobId)
      .where('company_id', '=', agent.companyId)
      .where('agent_id', '=', agent.uuid)
      .where('status', '=', 'claimed')
      .returningAll()
      .executeTakeFirst();
    if (row) {
      await transition(trx, row, 'claimed', agent, error.message);
      await recordJobEvent(storage, trx, 'print_job.failed', row);
      return toJobRecord(row);
    }
    const current = await getJobRow(trx, agent.companyId, jobId);
    throw notHolder(current, agent, 'report an error on');
  });
}

async function transition(
  db: Db,
  row: JobRow,
  from: JobRow['status'],
  agent: AgentRef,
  message: string | null,
): Promise<void> {
  await eventStatement(db, {
    companyId: row.company_id,
    jobId: row.id,
    from,
    to: row.status,
    agentUuid: agent.uuid,
    message,
    at: row.updated_at,
  });
}
