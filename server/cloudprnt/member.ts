import type { ServerConfig } from '../config.ts';
import type { PrintingService } from '../printing/index.ts';
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
