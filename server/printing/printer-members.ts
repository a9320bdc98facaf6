import { sql } from 'kysely';
import type { PrinterInfo } from '../../shared/printer-info.ts';
import type { ClaimedJob, PrintRoute } from '../../shared/printing.ts';
import { defaultServerConfig } from '../config.ts';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import { isoNow } from '../time.ts';
import type { OutboxDeps } from '../webhooks/index.ts';
import type { AgentRef } from './agents/agent-identities.ts';
import { agentPresentSeconds, type MemberSeen } from './agents/presence.ts';
import { recordHeartbeat } from './agents/record-heartbeat.ts';
import { storedPrinters } from './agents/records.ts';
import { registerAgent } from './agents/register-agent.ts';
import { updateRouteList } from './agents/update-route-list.ts';
import { claimJob } from './jobs/claim-job.ts';
import { confirmJob } from './jobs/confirm-job.ts';
import { failJob } from './jobs/fail-job.ts';
import type { PrintQueue } from './jobs/print-queue.ts';
import { toClaimedJob } from './jobs/records.ts';
import { releaseJob } from './jobs/release-job.ts';

/**
 * Printers that are members of a company themselves, with no agent beside them (a Star
 * CloudPRNT printer polls the server): each is a print agent of its own, serving one route with
 * one printer, so listings, wait reasons, the overview and webhooks treat it as any agent. These
 * are the agent operations such a member goes through — the same register, heartbeat, claim,
 * confirm, fail and release the agent routes use (agent-routes.ts), nothing beside them.
 */

export interface NewPrinterMember {
  uuid: string;
  name: string;
  /** What kind of member it is (`cloudprnt`): the agent's platform, as listings show it. */
  kind: string;
  /** Its model when known, else the kind again: the agent's hostname. */
  model: string;
  route: string;
  /** The one printer it is: its route prints on it. */
  printer: PrinterInfo;
  profile?: PrintRoute['profile'];
}

/**
 * Registers the member as an agent of the company, and gives it its one route. Present as an
 * agent registering is, for the default heartbeat's online interval: the command line that
 * adds it knows no server's heartbeat, and its first poll writes its own.
 */
export async function registerPrinterMember(
  deps: OutboxDeps,
  db: Db,
  companyId: number,
  member: NewPrinterMember,
  now: Date,
): Promise<AgentRef> {
  const { row } = await registerAgent(
    deps,
    db,
    companyId,
    {
      uuid: member.uuid,
      name: member.name,
      hostname: member.model,
      platform: member.kind,
      version: '-',
      printers: [member.printer],
    },
    now,
    agentPresentSeconds(defaultServerConfig.heartbeatSeconds),
  );
  const agent = { rowId: row.id, companyId, uuid: row.uuid };
  const route: PrintRoute = {
    name: member.route,
    printer: member.printer.name,
    enabled: true,
    options: {},
    ...(member.profile && { profile: member.profile }),
  };
  await updateRouteList(deps.storage, db, agent, [route]);
  return agent;
}

/**
 * The member was heard from: its presence (for `intervals.presentSeconds`:
 * `memberPresentSeconds`), and its printer's state when it changed (undefined: as before). The
 * jobs it holds keep their leases while it is heard from.
 */
export async function recordMemberSeen(
  queue: PrintQueue,
  db: Db,
  agent: AgentRef,
  printer: PrinterInfo | undefined,
  heldJobIds: number[],
  now: Date,
  intervals: { leaseSeconds: number; presentSeconds: number },
): Promise<void> {
  await recordHeartbeat(
    queue,
    db,
    agent,
    { held_job_ids: heldJobIds, ...(printer && { printers: [printer] }) },
    now,
    intervals,
  );
}

/**
 * The member's model, once it says it (a CloudPRNT printer's `ClientType`: `Star mC-Print3`):
 * its agent's hostname, as listings show it. No event: what a member is called is no state.
 */
export async function recordMemberModel(
  db: Db,
  agent: AgentRef,
  model: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('print_agents')
    .set({ hostname: model.slice(0, 255), updated_at: isoNow(now) })
    .where('id', '=', agent.rowId)
    .execute();
}

// Compiled once (prepared): every poll of a printer member reads it. The job queued on its
// route is asked in the same statement: on SQLite each statement is a read transaction of its
// own, and a poll's separate read of the queued routes was a quarter of an idle poll's CPU.
const memberRow = prepared((db, p: { rowId: number; companyId: number; route: string }) =>
  db
    .selectFrom('print_agents')
    .select(['printers', 'last_seen_at', 'online_since'])
    .select((eb) =>
      eb
        .exists(
          eb
            .selectFrom('print_jobs')
            .select('id')
            .where('company_id', '=', p.companyId)
            .where('route', '=', p.route)
            // A constant, so the partial queue index (`status = 'queued'`) serves it.
            .where('status', '=', sql.lit('queued')),
        )
        .as('queued'),
    )
    .where('id', '=', p.rowId),
);

/** What a member's poll reads first: its state as last recorded, and whether work waits. */
export interface MemberLastSeen extends MemberSeen {
  /** Its printer as last recorded (its one printer). */
  printer: PrinterInfo | undefined;
  /** Whether a job is queued on the member's route (read with the rest, nothing written). */
  jobQueued: boolean;
}

/**
 * The member's printer as last recorded (its one printer), when it was last seen, whether it
 * is signed on, and whether a job is queued on `route`: one read, for a poll to tell whether
 * anything changed and whether to offer work.
 */
export async function memberLastSeen(
  db: Db,
  agent: AgentRef,
  route: string,
): Promise<MemberLastSeen> {
  const row = (await memberRow(db, { rowId: agent.rowId, companyId: agent.companyId, route }))[0];
  const printers = row ? storedPrinters.parse(JSON.parse(row.printers)) : [];
  return {
    printer: printers[0],
    lastSeenAt: row?.last_seen_at ?? null,
    online: row !== undefined && row.online_since !== null,
    // SQLite answers 1 or 0, PostgreSQL a boolean.
    jobQueued: Boolean(row?.queued),
  };
}

/** Claims the next job of the member's route for it, with a lease, as an agent's claim does. */
export async function claimForMember(
  queue: PrintQueue,
  db: Db,
  agent: AgentRef,
  now: Date,
  leaseSeconds: number,
): Promise<ClaimedJob | undefined> {
  return (await claimJob(queue, db, agent, now, leaseSeconds))?.job;
}

/** Whether the member still holds the job claimed: one read. */
export async function memberHolds(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  jobId: number,
): Promise<boolean> {
  const row = await store.read(db, agent.companyId, jobId);
  return row?.status === 'claimed' && row.agent_id === agent.uuid;
}

/**
 * The job the member holds claimed, with its document, as its claim gave it: a member that
 * asks for its job again (a repeated GET) gets the same job, and nothing is claimed. Undefined
 * when it no longer holds it (confirmed, failed, given back, its lease ran out).
 */
export async function heldJobOf(
  { store }: PrintQueue,
  db: Db,
  agent: AgentRef,
  jobId: number,
): Promise<ClaimedJob | undefined> {
  const row = await store.read(db, agent.companyId, jobId);
  if (row?.status !== 'claimed' || row.agent_id !== agent.uuid) return undefined;
  const content = await store.content(db, agent.companyId, jobId);
  return content === undefined ? undefined : toClaimedJob(row, content);
}

export { confirmJob as confirmMemberJob, failJob as failMemberJob, releaseJob as releaseMemberJob };
