import type { JobRecord, ReleaseJobBody } from '../../../shared/printing.ts';
import {
  type WaitReason,
  type WaitReasonCode,
  waitReasonCodes,
} from '../../../shared/wait-reasons.ts';
import { Conflict } from '../../domain-errors.ts';
import type { Db } from '../../storage/db.ts';
import { isoNow } from '../../time.ts';
import type { AgentRef } from '../agents/agent-identities.ts';
import { notHeld } from './hold-conflict.ts';
import type { PrintQueue } from './print-queue.ts';
import { readJobRow } from './read-job.ts';
import { toJobRecord } from './records.ts';

/** The agent's code as a wait reason: one of the codes, else the printer is stopped. */
function waitReasonOf({ code, message }: ReleaseJobBody): WaitReason {
  const known = (waitReasonCodes as readonly string[]).includes(code);
  return { code: known ? (code as WaitReasonCode) : 'printer_stopped', message };
}

/**
 * The holder gives a job back unprinted because its printer cannot print now (out of paper,
 * stopped): `claimed → queued` under the same id, the claim cleared, its expiry kept (the
 * hold limit counts from when it was first queued), and an event that says why. The job then
 * waits like any queued job and is claimed again once a printer of its route can print.
 * Attempts keep counting: the claim happened.
 */
export async function releaseJob(
  { storage, store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  jobId: number,
  reason: ReleaseJobBody,
  now: Date,
): Promise<JobRecord> {
  const waitReason = waitReasonOf(reason);
  const row = await storage.transaction(db, async (trx) => {
    const current = await readJobRow(store, trx, agent.companyId, jobId);
    if (current.status !== 'claimed' || current.agent_id !== agent.uuid) {
      throw notHeld(current, agent.uuid, 'give back');
    }
    const row = await store.requeue(trx, {
      companyId: agent.companyId,
      jobId,
      from: 'claimed',
      heldBy: agent.uuid,
      agentId: agent.uuid,
      expiresAt: current.expires_at,
      now: isoNow(now),
      message: `given back unprinted (${reason.code}): ${reason.message}`,
      // It starts waiting now, for the reason its agent gave: print_job.waiting, in its commit.
      waitReason,
    });
    if (!row) throw new Conflict(`Job ${jobId} changed while it was being given back; try again.`);
    return row;
  });
  return { ...toJobRecord(row), wait_reason: waitReason };
}
