import type { Selectable } from 'kysely';
import { z } from 'zod';
import {
  type AgentConfig,
  type AgentRecord,
  type HeartbeatBody,
  type HeartbeatResult,
  type PrintRoute,
  printerInfoSchema,
  type RegisterAgentBody,
} from '../../shared/printing.ts';
import type { ServerConfig } from '../config.ts';
import { Conflict } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import type { PrintingTables } from '../storage/tables/printing.ts';
import { isoNow } from '../time.ts';
import { afterAgentChange, beforeAgentChange, recordAgentOnline } from './agent-events.ts';

export type AgentRow = Selectable<PrintingTables['print_agents']>;

/** What the routes need to know about the calling agent; immutable once registered. */
export interface AgentRef {
  rowId: number;
  companyId: number;
  uuid: string;
}

/**
 * Printers as stored: validated on the way in, but rows written before the state fields
 * existed hold only `{name, is_default}`; parsing fills in the defaults (state `unknown`).
 */
const storedPrinters = z.array(printerInfoSchema);

/**
 * An agent counts as online while its last heartbeat (or registration) is within this many
 * heartbeat intervals: one heartbeat may be lost without the agent showing offline.
 */
export const onlineHeartbeats = 2;

/** The oldest `last_seen_at` of an agent that is online at `now`, as stored (to the second). */
export const onlineSince = (now: Date, heartbeatSeconds: number): string =>
  isoNow(new Date(now.getTime() - onlineHeartbeats * heartbeatSeconds * 1000));

export function toAgentRecord(row: AgentRow, now: Date, heartbeatSeconds: number): AgentRecord {
  return {
    id: row.uuid,
    name: row.name,
    hostname: row.hostname,
    platform: row.platform,
    version: row.version,
    printers: storedPrinters.parse(JSON.parse(row.printers)),
    paused: Boolean(row.paused),
    online: row.last_seen_at !== null && row.last_seen_at >= onlineSince(now, heartbeatSeconds),
    last_seen_at: row.last_seen_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Just seen (registered, or a heartbeat): its `last_seen_at` is `now`, so it is online
 * whatever the heartbeat interval, even none.
 */
const justSeen = (now: Date) => (row: AgentRow) => toAgentRecord(row, now, 0);

export async function findAgentRow(db: Db, uuid: string): Promise<AgentRow | undefined> {
  return db.selectFrom('print_agents').selectAll().where('uuid', '=', uuid).executeTakeFirst();
}

const takenElsewhere = () =>
  new Conflict(
    'This agent UUID is registered to another company; the agent must generate a new UUID.',
  );

/** Idempotent per uuid: creates the agent, or refreshes what it says about itself. */
export async function registerAgent(
  storage: Storage,
  companyId: number,
  input: RegisterAgentBody,
  now: Date,
): Promise<{ row: AgentRow; created: boolean }> {
  const stamp = isoNow(now);
  return storage.transaction(async (trx) => {
    const inserted = await trx
      .insertInto('print_agents')
      .values({
        company_id: companyId,
        uuid: input.uuid.toLowerCase(),
        name: input.name,
        hostname: input.hostname,
        platform: input.platform,
        version: input.version,
        printers: JSON.stringify(input.printers),
        paused: 0,
        last_seen_at: stamp,
        online_since: stamp,
        created_at: stamp,
        updated_at: stamp,
      })
      // Two registrations racing (PostgreSQL): the loser updates what the winner wrote.
      .onConflict((oc) => oc.column('uuid').doNothing())
      .returningAll()
      .executeTakeFirst();
    if (inserted) {
      await recordAgentOnline(storage, trx, inserted, justSeen(now));
      return { row: inserted, created: true };
    }
    const existing = await findAgentRow(trx, input.uuid.toLowerCase());
    if (!existing || existing.company_id !== companyId) throw takenElsewhere();
    const ref = { rowId: existing.id, companyId };
    const before = await beforeAgentChange(storage, trx, ref, stamp, true);
    const row = await trx
      .updateTable('print_agents')
      .set({
        name: input.name,
        hostname: input.hostname,
        platform: input.platform,
        version: input.version,
        printers: JSON.stringify(input.printers),
        last_seen_at: stamp,
        updated_at: stamp,
      })
      .where('id', '=', existing.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await afterAgentChange(storage, trx, ref, before, justSeen(now));
    return { row, created: false };
  });
}

/** Presence, printers and paused flag; extends the leases of the jobs the agent still holds. */
export async function recordHeartbeat(
  storage: Storage,
  agent: AgentRef,
  input: HeartbeatBody,
  now: Date,
  leaseSeconds: number,
): Promise<HeartbeatResult> {
  const stamp = isoNow(now);
  const lease = isoNow(new Date(now.getTime() + leaseSeconds * 1000));
  return storage.transaction(async (trx) => {
    const before = await beforeAgentChange(
      storage,
      trx,
      agent,
      stamp,
      input.printers !== undefined,
    );
    await trx
      .updateTable('print_agents')
      .set({
        last_seen_at: stamp,
        ...(input.printers !== undefined ? { printers: JSON.stringify(input.printers) } : {}),
        ...(input.paused !== undefined ? { paused: input.paused ? 1 : 0 } : {}),
        // Presence alone is not a change of the record; what the agent says about itself is.
        ...(input.printers !== undefined || input.paused !== undefined
          ? { updated_at: stamp }
          : {}),
      })
      .where('id', '=', agent.rowId)
      .execute();
    await afterAgentChange(storage, trx, agent, before, justSeen(now));
    const held = [...new Set(input.held_job_ids)];
    let extended: number[] = [];
    if (held.length > 0) {
      // A lease already past its end is lost even before the sweep marks the job failed:
      // the agent is told to let the job go rather than print it late.
      const rows = await trx
        .updateTable('print_jobs')
        .set({ lease_expires_at: lease })
        .where('company_id', '=', agent.companyId)
        .where('agent_id', '=', agent.uuid)
        .where('status', '=', 'claimed')
        .where('lease_expires_at', '>', stamp)
        .where('id', 'in', held)
        .returning('id')
        .execute();
      extended = rows.map((row) => row.id).sort((a, b) => a - b);
    }
    const kept = new Set(extended);
    return {
      server_time: stamp,
      extended_job_ids: extended,
      released_job_ids: held.filter((id) => !kept.has(id)).sort((a, b) => a - b),
      lease_expires_at: extended.length > 0 ? lease : null,
    };
  });
}

export async function listAgentRoutes(db: Db, agentRowId: number): Promise<PrintRoute[]> {
  const rows = await db
    .selectFrom('print_routes')
    .select(['name', 'printer', 'enabled', 'options'])
    .where('agent_id', '=', agentRowId)
    .orderBy('position')
    .execute();
  return rows.map((row) => ({
    name: row.name,
    printer: row.printer,
    enabled: Boolean(row.enabled),
    options: JSON.parse(row.options),
  }));
}

export async function enabledRouteNames(db: Db, agentRowId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('print_routes')
    .select('name')
    .where('agent_id', '=', agentRowId)
    .where('enabled', '=', 1)
    .execute();
  return rows.map((row) => row.name);
}

/**
 * Replaces the agent's routes with exactly these. On PostgreSQL the agent row is locked
 * first (`FOR NO KEY UPDATE`, which the routes' foreign key does not conflict with): two
 * replacements at once (the agent retrying through another instance) would otherwise both
 * delete, then both insert, and the second hit the unique (agent, name) index — a 500.
 */
export async function replaceAgentRoutes(
  storage: Storage,
  agent: AgentRef,
  routes: PrintRoute[],
): Promise<PrintRoute[]> {
  return storage.transaction(async (trx) => {
    if (storage.dialect === 'postgres') {
      await trx
        .selectFrom('print_agents')
        .select('id')
        .where('id', '=', agent.rowId)
        .forNoKeyUpdate()
        .execute();
    }
    await trx.deleteFrom('print_routes').where('agent_id', '=', agent.rowId).execute();
    if (routes.length > 0) {
      await trx
        .insertInto('print_routes')
        .values(
          routes.map((route, position) => ({
            company_id: agent.companyId,
            agent_id: agent.rowId,
            position,
            name: route.name,
            printer: route.printer,
            enabled: route.enabled ? 1 : 0,
            options: JSON.stringify(route.options),
          })),
        )
        .execute();
    }
    return listAgentRoutes(trx, agent.rowId);
  });
}

export async function agentConfigOf(
  storage: Storage,
  agent: AgentRef,
  company: { id: number; name: string },
  config: ServerConfig,
  now: Date,
): Promise<AgentConfig> {
  const db = storage.db;
  const row = await db
    .selectFrom('print_agents')
    .selectAll()
    .where('id', '=', agent.rowId)
    .executeTakeFirstOrThrow();
  const routes = await listAgentRoutes(db, agent.rowId);
  const served = await db
    .selectFrom('print_routes')
    .select('name')
    .distinct()
    .where('company_id', '=', agent.companyId)
    .execute();
  // Jobs waiting on a route nobody serves are what a settings screen must offer; the
  // history of every route ever used would grow without bound (and read every job).
  const queued = await db
    .selectFrom('print_jobs')
    .select('route')
    .distinct()
    .where('company_id', '=', agent.companyId)
    .where('status', '=', 'queued')
    .execute();
  const names = new Set([...served.map((r) => r.name), ...queued.map((r) => r.route)]);
  return {
    company,
    agent: toAgentRecord(row, now, config.heartbeatSeconds),
    routes,
    route_names: [...names].sort(),
    intervals: {
      long_poll_wait_seconds: config.longPollWaitSeconds,
      heartbeat_seconds: config.heartbeatSeconds,
      lease_seconds: config.leaseSeconds,
    },
  };
}
