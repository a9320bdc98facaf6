import type { JobRecord } from '../../shared/printing.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { groupedSqliteTransaction, prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import { wantsEvent } from '../webhooks/outbox.ts';
import type { AgentRef } from './agents.ts';
import { recordJobEvent } from './job-events.ts';
import {
  getJobRow,
  type JobRow,
  type Transition,
  toJobRecord,
  transitionStatement,
} from './jobs.ts';
import { type ConfirmValues, confirmUpdate, confirmWithOthers } from './pg-confirm.ts';

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
const confirmStatement = prepared<ConfirmValues, JobRow>((db, p) => confirmUpdate(db, p));

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
  const values = {
    jobId,
    companyId: agent.companyId,
    agentUuid: agent.uuid,
    printer: printer ?? null,
    now: stamp,
  };
  const message = printer ? `printed on ${printer}` : null;
  const db = storage.db;
  if (storage.dialect === 'postgres') {
    if ((await wantsEvent(storage, db, agent.companyId, 'print_job.printed')) === false) {
      // One statement with this turn's other confirms (pg-confirm.ts); when it changes
      // nothing, the path below says why.
      const row = await confirmWithOthers(db, values);
      if (row) return toJobRecord(row);
    }
  } else {
    // SQLite, the usual case (no endpoint takes print_job.printed, the connection is free):
    // the UPDATE and its event synchronously, straight on the connection, in the group
    // commit of this turn's claims and confirms. A confirm that changes nothing takes the
    // general path below, which says why.
    const wants = wantsEvent(storage, db, agent.companyId, 'print_job.printed');
    if (wants instanceof Promise) {
      await wants; // Loads the subscriptions: the next confirms know at once.
    } else if (!wants) {
      const row = await groupedSqliteTransaction(db, () => {
        const row = confirmStatement.sync(db, values)[0];
        if (row) transitionStatement.sync(db, transitionOf(row, 'claimed', agent, message));
        return row;
      });
      if (row) return toJobRecord(row);
    }
  }
  return storage.transaction(async (trx) => {
    // In the transaction that holds the connection: on SQLite, straight on it.
    const confirmed = await confirmStatement(trx, values);
    const row = confirmed[0];
    if (row) {
      await transition(trx, row, 'claimed', agent, message);
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
  await transitionStatement(db, transitionOf(row, from, agent, message));
}

function transitionOf(
  row: JobRow,
  from: JobRow['status'],
  agent: AgentRef,
  message: string | null,
): Transition {
  return {
    companyId: row.company_id,
    jobId: row.id,
    from,
    to: row.status,
    agentId: agent.uuid,
    message,
    at: row.updated_at,
  };
}
