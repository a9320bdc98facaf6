import type { Selectable } from 'kysely';
import { z } from 'zod';
import {
  type AgentListing,
  type AgentRecord,
  type PrintRoute,
  printerInfoSchema,
} from '../../../shared/printing.ts';
import type { PrintingTables } from '../../storage/tables/printing.ts';
import { onlineSince, type Presence } from './presence.ts';

export type AgentRow = Selectable<PrintingTables['print_agents']>;
export type RouteRow = Pick<
  Selectable<PrintingTables['print_routes']>,
  'name' | 'printer' | 'enabled' | 'options' | 'profile'
>;

/**
 * Printers as stored: validated on the way in, but rows written before the state fields
 * existed hold only `{name, is_default}`; parsing fills in the defaults (state `unknown`).
 */
export const storedPrinters = z.array(printerInfoSchema);

/** An agent as the API shows it, `online` as of `presence`. */
export function toAgentRecord(row: AgentRow, { now, heartbeatSeconds }: Presence): AgentRecord {
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
 * An agent just seen (registered, or a heartbeat): its `last_seen_at` is `now`, so it is
 * online whatever the heartbeat interval, even none.
 */
export const justSeen = (now: Date) => (row: AgentRow) =>
  toAgentRecord(row, { now, heartbeatSeconds: 0 });

/** An agent's print route as the API shows it. */
export function toRouteRecord(row: RouteRow): PrintRoute {
  return {
    name: row.name,
    printer: row.printer,
    enabled: Boolean(row.enabled),
    options: JSON.parse(row.options),
    ...(row.profile !== null && { profile: JSON.parse(row.profile) }),
  };
}

/** An agent with its routes, as `GET /printing/agents` lists it. */
export const toAgentListing = (
  row: AgentRow,
  routes: PrintRoute[],
  presence: Presence,
): AgentListing => ({ ...toAgentRecord(row, presence), routes });
