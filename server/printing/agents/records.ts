import type { Selectable } from 'kysely';
import { z } from 'zod';
import {
  type AgentListing,
  type AgentPrinter,
  type AgentRecord,
  type PrintRoute,
  printerInfoSchema,
} from '../../../shared/printing.ts';
import type { PrintingTables } from '../../storage/tables/printing.ts';
import { type Presence, presentAt } from './presence.ts';

export type AgentRow = Selectable<PrintingTables['print_agents']>;
export type RouteRow = Pick<
  Selectable<PrintingTables['print_routes']>,
  'name' | 'printer' | 'enabled' | 'options' | 'profile' | 'backup_printers'
>;

/**
 * Printers as stored: validated on the way in, but rows written before the state fields
 * existed hold only `{name, is_default}`; parsing fills in the defaults (state `unknown`).
 */
export const storedPrinters = z.array(printerInfoSchema);

/**
 * Whether the agent is online at `now`: still present (heard within its online interval, which
 * its `present_until` says) and not signed off (a clean stop clears `online_since` at once, as
 * the sweep does for a silent agent).
 */
export const isOnlineRow = (
  row: Pick<AgentRow, 'present_until' | 'online_since'>,
  { now }: Presence,
): boolean =>
  row.present_until !== null && row.online_since !== null && row.present_until >= presentAt(now);

/**
 * The printers of an agent record: as reported while the agent is online; `unknown` once it is
 * offline, never `ready`, with the state it last reported and when in `last_known`.
 */
export function recordPrinters(
  stored: string,
  online: boolean,
  seenAt: string | null,
): AgentPrinter[] {
  const printers = storedPrinters.parse(JSON.parse(stored));
  if (online) return printers;
  return printers.map(({ state, reasons, accepting_jobs, message, ...printer }) => ({
    ...printer,
    state: 'unknown',
    reasons: [],
    accepting_jobs: null,
    message: null,
    last_known: { state, reasons, accepting_jobs, message, at: seenAt },
  }));
}

/** An agent as the API shows it, `online` as of `presence`. */
export function toAgentRecord(row: AgentRow, presence: Presence): AgentRecord {
  const online = isOnlineRow(row, presence);
  return {
    id: row.uuid,
    name: row.name,
    hostname: row.hostname,
    platform: row.platform,
    version: row.version,
    printers: recordPrinters(row.printers, online, row.last_seen_at),
    paused: Boolean(row.paused),
    online,
    last_seen_at: row.last_seen_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An agent just seen (registered, or a heartbeat): present from `now` on, so online. */
export const justSeen = (now: Date) => (row: AgentRow) => toAgentRecord(row, { now });

/** An agent's print route as the API shows it. */
export function toRouteRecord(row: RouteRow): PrintRoute {
  return {
    name: row.name,
    printer: row.printer,
    // Only when there are some: a route without backups reads as it always did.
    ...(row.backup_printers !== null && { backup_printers: backupPrintersOf(row.backup_printers) }),
    enabled: Boolean(row.enabled),
    options: JSON.parse(row.options),
    ...(row.profile !== null && { profile: JSON.parse(row.profile) }),
  };
}

/** A route's backup printers as stored (a JSON array, or null for none). */
export function backupPrintersOf(stored: string | null): string[] {
  return stored === null ? [] : (JSON.parse(stored) as string[]);
}

/** A route's backup printers as stored: none is null, so rows written before read the same. */
export const storedBackupPrinters = (backups: readonly string[]): string | null =>
  backups.length === 0 ? null : JSON.stringify(backups);

/** An agent with its routes, as `GET /printing/agents` lists it. */
export const toAgentListing = (
  row: AgentRow,
  routes: PrintRoute[],
  presence: Presence,
): AgentListing => ({ ...toAgentRecord(row, presence), routes });
