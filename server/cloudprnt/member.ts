import type { ServerConfig } from '../config.ts';
import type { PrintingService } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import type { Clock } from '../time.ts';
import { basicCredentialsOf, passwordMatches } from './credentials.ts';
import { digestMatches, nonceFresh, parseDigest } from './digest.ts';
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
  // An Epson printer's credentials are for its own route (HTTP Digest), not this one.
  if (row?.kind !== 'star') return undefined;
  if (!passwordMatches(credentials.password, row.password_hash)) return undefined;
  const agent = await printing.requireAgent(db, row.agent_uuid, row.company_id);
  return { row, agent };
}

/**
 * The Epson printer whose HTTP Digest answer `authorization` carries, for `method` on `path`,
 * and its agent: `stale` when the answer was right but its nonce too old (the printer asks
 * again with a new one, RFC 7616 §3.3); undefined when missing, wrong or revoked.
 */
export async function callingEpsonPrinter(
  { printing, clock }: CloudPrntDeps,
  db: Db,
  request: { authorization: string | undefined; method: string; path: string },
): Promise<CallingPrinter | 'stale' | undefined> {
  const answer = parseDigest(request.authorization);
  if (!answer) return undefined;
  const row = await findPrinterByUsername(db, answer.username);
  if (row?.kind !== 'epson' || !row.digest_ha1) return undefined;
  if (!digestMatches(answer, row.digest_ha1, request.method, request.path)) return undefined;
  if (!nonceFresh(answer.nonce, clock.now())) return 'stale';
  const agent = await printing.requireAgent(db, row.agent_uuid, row.company_id);
  return { row, agent };
}
