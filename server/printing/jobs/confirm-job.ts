import type { JobRecord } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import { notHeld } from './hold-conflict.ts';
import type { PrintQueue } from './print-queue.ts';
import { readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';

/**
 * The holder says the job printed. A claim whose lease has run out but that the sweep has
 * not failed yet is still accepted: the paper did come out. Only when the store changed
 * nothing is the job read, to say why, or to answer a repeat confirm with 200 (confirming
 * twice is harmless: the same answer, nothing changes).
 */
export async function confirmJob(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  jobId: number,
  printer: string | undefined,
  now: Date,
): Promise<JobRecord> {
  const row = await store.confirm(db, {
    jobId,
    companyId: agent.companyId,
    agentUuid: agent.uuid,
    printer: printer ?? null,
    now: isoNow(now),
  });
  if (row) return toJobRecord(row);
  const current = await readJobRow(store, db, agent.companyId, jobId);
  if (current.status === 'printed' && current.agent_id === agent.uuid) return toJobRecord(current);
  throw notHeld(current, agent.uuid, 'confirm');
}
