import type { AgentRecord, PrinterInfo } from '../../../shared/printing.ts';
import type { Db } from '../../storage/db.ts';
import { lockRows } from '../../storage/locks.ts';
import { prepared } from '../../storage/prepared.ts';
import type { WebhookOutbox } from '../../webhooks/index.ts';
import type { AgentRow } from './records.ts';

/** The agent as the API shows it (`toAgentRecord` at a given presence, records.ts). */
export type DescribeAgent = (row: AgentRow) => AgentRecord;

/** What the agent's row said before a registration or heartbeat changed it. */
export interface AgentBefore {
  /** It was offline (as `agent.offline` announced, or never seen): it is online now. */
  cameOnline: boolean;
  /** Its printers, read only when they were sent and `printer.state_changed` is wanted. */
  printers: Record<string, unknown>[] | undefined;
}

/** Marks the agent online; answers a row only when it was not (one statement either way). */
const markOnline = prepared<{ id: number; now: string }, { id: number }>((db, p) =>
  db
    .updateTable('print_agents')
    .set({ online_since: p.now })
    .where('id', '=', p.id)
    .where('online_since', 'is', null)
    .returning('id'),
);

/**
 * Before a known agent's row changes (a registration again, a heartbeat): it is online from
 * now, and whether it was not tells `agent.online`. Its printers as stored are read only when
 * the request sends printers and some endpoint takes `printer.state_changed`; on PostgreSQL
 * with a row lock, so that two requests of one agent compare one after the other.
 */
export async function beforeAgentChange(
  outbox: WebhookOutbox,
  db: Db,
  agent: { rowId: number; companyId: number },
  now: string,
  printersSent: boolean,
): Promise<AgentBefore> {
  const cameOnline = (await markOnline(db, { id: agent.rowId, now })).length > 0;
  let printers: AgentBefore['printers'];
  if (printersSent && (await outbox.wants(db, agent.companyId, 'printer.state_changed'))) {
    const read = db.selectFrom('print_agents').select('printers').where('id', '=', agent.rowId);
    const row = await lockRows(db, read, 'update').executeTakeFirst();
    printers = row ? (JSON.parse(row.printers) as Record<string, unknown>[]) : [];
  }
  return { cameOnline, printers };
}

/**
 * After the change: `agent.online` when it came online, and a `printer.state_changed` for
 * each printer whose reported fields differ from before, by name (whatever fields the agent
 * reports), or that appeared or went away.
 */
export async function afterAgentChange(
  outbox: WebhookOutbox,
  db: Db,
  agent: { rowId: number; companyId: number },
  before: AgentBefore,
  describe: DescribeAgent,
): Promise<void> {
  if (!before.cameOnline && before.printers === undefined) return;
  const row = await db
    .selectFrom('print_agents')
    .selectAll()
    .where('id', '=', agent.rowId)
    .executeTakeFirstOrThrow();
  const at = row.last_seen_at ?? row.updated_at;
  if (before.cameOnline) await recordAgentOnline(outbox, db, row, describe);
  if (before.printers === undefined) return;
  const after = JSON.parse(row.printers) as Record<string, unknown>[];
  for (const change of printerChanges(before.printers, after)) {
    await outbox.record(db, {
      companyId: agent.companyId,
      type: 'printer.state_changed',
      at,
      data: () => ({ ...change, agent: describe(row) }),
    });
  }
}

/** A new agent, or one back online: `agent.online`, with the agent as the API shows it. */
export function recordAgentOnline(
  outbox: WebhookOutbox,
  db: Db,
  row: AgentRow,
  describe: DescribeAgent,
): void | Promise<void> {
  const at = row.last_seen_at ?? row.updated_at;
  return outbox.record(db, {
    companyId: row.company_id,
    type: 'agent.online',
    at,
    data: () => describe(row),
  });
}

export interface PrinterChange {
  name: string;
  /** As the agent reports it now; null when it no longer reports it. */
  printer: PrinterInfo | null;
  /** As it was reported before; null when it is new. */
  previous: PrinterInfo | null;
}

/** The printers whose reported fields changed, appeared or went away, by name. */
export function printerChanges(
  before: readonly Record<string, unknown>[],
  after: readonly Record<string, unknown>[],
): PrinterChange[] {
  const byName = (list: readonly Record<string, unknown>[]) =>
    new Map(list.map((printer) => [String(printer.name), printer]));
  const old = byName(before);
  const now = byName(after);
  const names = [...new Set([...now.keys(), ...old.keys()])];
  return names.flatMap((name) => {
    const previous = old.get(name) ?? null;
    const printer = now.get(name) ?? null;
    if (previous && printer && canonical(previous) === canonical(printer)) return [];
    return [
      { name, printer: printer as PrinterInfo | null, previous: previous as PrinterInfo | null },
    ];
  });
}

/** The same fields and values, whatever their order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
