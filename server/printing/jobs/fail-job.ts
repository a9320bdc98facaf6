import type { JobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import { notHeld } from './hold-conflict.ts';
import type { PrintQueue } from './print-queue.ts';
import { readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';

/** The holder says the job failed: `failed`, with the agent's message and code. */
export async function failJob(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  jobId: number,
  error: { message: string; code?: string | undefined },
  now: Date,
): Promise<JobRecord> {
  const row = await store.fail(db, {
    jobId,
    companyId: agent.companyId,
    agentUuid: agent.uuid,
    message: error.message,
    code: error.code ?? null,
    now: isoNow(now),
  });
  if (row) return toJobRecord(row);
  const current = await readJobRow(store, db, agent.companyId, jobId);
  throw notHeld(current, agent.uuid, 'report an error on');
}
