import type { PrinterInfo } from '../../shared/printer-info.ts';
import type { ServerConfig } from '../config.ts';
import { findAgentRow, type PrintingService } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import type { Clock } from '../time.ts';
import { basicCredentialsOf, passwordMatches } from './credentials.ts';
import { type CloudPrntPrinterRow, findPrinterByUsername } from './printer-rows.ts';

/** What the CloudPRNT routes work with: printing's service, the clock and the intervals. */
export interface CloudPrntDeps {
  printing: PrintingService;
  clock: Clock;
  config: Pick<ServerConfig, 'leaseSeconds' | 'heartbeatSeconds'>;
}

/** The printer calling, by its credentials, and the print agent that stands for it. */
export interface CallingPrinter {
  row: CloudPrntPrinterRow;
  agent: Awaited<ReturnType<PrintingService['requireAgent']>>;
}

/**
 * The printer whose HTTP basic credentials `authorization` carries, and its agent; undefined
 * when they are missing, wrong or revoked (the route answers 401, as Star's general server
 * error responses say). Two reads, one of them cached (an agent's identity never changes).
 */
export async function callingPrinter(
  { printing }: CloudPrntDeps,
  db: Db,
  authorization: string | undefined,
): Promise<CallingPrinter | undefined> {
  const credentials = basicCredentialsOf(authorization);
  if (!credentials) return undefined;
  const row = await findPrinterByUsername(db, credentials.user);
  if (!row || !passwordMatches(credentials.password, row.password_hash)) return undefined;
  const agent = await printing.requireAgent(db, row.agent_uuid, row.company_id);
  return { row, agent };
}

/** The printer as its agent row last recorded it (state, reasons), and when it was last seen. */
export async function storedPrinterOf(
  db: Db,
  agentUuid: string,
): Promise<{ printer: PrinterInfo | undefined; lastSeenAt: string | null; online: boolean }> {
  const row = await findAgentRow(db, agentUuid);
  const printers = row ? (JSON.parse(row.printers) as PrinterInfo[]) : [];
  return {
    printer: printers[0],
    lastSeenAt: row?.last_seen_at ?? null,
    online: row?.online_since !== null && row?.online_since !== undefined,
  };
}
