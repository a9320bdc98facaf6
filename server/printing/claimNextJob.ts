import type { ClaimedJob } from '../../shared/printing.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';
import type { AgentRef } from './agents.ts';
import { toJobRecord } from './jobs.ts';

export interface Claim {
  job: ClaimedJob;
  /** Id of the claim's event, so that an undone claim leaves no trace. */
  eventId: number;
}

/**
 * Claims the oldest job of the highest priority queued on one of the agent's enabled
 * routes, in one statement: the subquery picks the job and the outer `status = 'queued'`
 * re-checks it, so two claimers can never both win one job. On PostgreSQL the subquery
 * takes the row with FOR UPDATE SKIP LOCKED, so concurrent claimers pass over each
 * other's rows instead of queueing behind them. SQLite has a single writer.
 */
export async function claimNextJob(
  storage: Storage,
  agent: AgentRef,
  now: Date,
  leaseSeconds: number,
): Promise<Claim | undefined> {
  const stamp = isoNow(now);
  const lease = isoNow(new Date(now.getTime() + leaseSeconds * 1000));
  return storage.db.transaction().execute(async (trx) => {
    // Per enabled route, the index gives its best queued job directly; the best of those
    // few wins. (A plain `route IN (...) ORDER BY` would sort every queued job each time.)
    const next = trx
      .selectFrom('print_routes as r')
      .innerJoin('print_jobs as j', (join) =>
        join.on((eb) => {
          let best = eb
            .selectFrom('print_jobs as c')
            .select('c.id')
            .where('c.company_id', '=', agent.companyId)
            .where('c.status', '=', 'queued')
            .whereRef('c.route', '=', 'r.name')
            // A job past its expiry is not handed out, even before the sweep expires it.
            .where((w) => w.or([w('c.expires_at', 'is', null), w('c.expires_at', '>', stamp)]))
            .orderBy('c.priority', 'desc')
            .orderBy('c.id')
            .limit(1);
          if (storage.dialect === 'postgres') best = best.forUpdate().skipLocked();
          return eb('j.id', '=', best);
        }),
      )
      .select('j.id')
      .where('r.agent_id', '=', agent.rowId)
      .where('r.enabled', '=', 1)
      .orderBy('j.priority', 'desc')
      .orderBy('j.id')
      .limit(1);
    const row = await trx
      .updateTable('print_jobs')
      .set((eb) => ({
        status: 'claimed',
        agent_id: agent.uuid,
        claimed_at: stamp,
        lease_expires_at: lease,
        updated_at: stamp,
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', next)
      .where('status', '=', 'queued')
      .returningAll()
      .executeTakeFirst();
    if (!row) return undefined;
    const event = await trx
      .insertInto('print_job_events')
      .values({
        company_id: agent.companyId,
        job_id: row.id,
        from_status: 'queued',
        to_status: 'claimed',
        agent_id: agent.uuid,
        message: null,
        at: stamp,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const document = await trx
      .selectFrom('print_documents')
      .select('content')
      .where('id', '=', row.document_id)
      .executeTakeFirstOrThrow();
    const record = toJobRecord(row);
    return {
      eventId: event.id,
      job: {
        ...record,
        document: {
          content_type: record.content_type,
          size: record.size,
          sha256: record.sha256,
          content_base64: Buffer.from(document.content).toString('base64'),
        },
      },
    };
  });
}

/**
 * Gives back a claim whose answer could not be delivered (the client went away while it
 * was being made): the job is queued again as if it had never been claimed — attempts
 * restored and the claim's event removed. Only a claim still held by that agent is undone.
 */
export async function undoClaim(storage: Storage, agent: AgentRef, claim: Claim): Promise<boolean> {
  return storage.db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('print_jobs')
      .set((eb) => ({
        status: 'queued',
        agent_id: null,
        claimed_at: null,
        lease_expires_at: null,
        attempts: eb('attempts', '-', 1),
      }))
      .where('id', '=', claim.job.id)
      .where('company_id', '=', agent.companyId)
      .where('agent_id', '=', agent.uuid)
      .where('status', '=', 'claimed')
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return false;
    await trx.deleteFrom('print_job_events').where('id', '=', claim.eventId).execute();
    return true;
  });
}
