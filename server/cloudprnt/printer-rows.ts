import type { Selectable } from 'kysely';
import type { Db } from '../storage/db.ts';
import { prepared } from '../storage/prepared.ts';
import type { CloudPrntTables } from '../storage/tables/cloudprnt.ts';
import type { CloudPrntCapabilities } from './protocol.ts';

/** The queries of `cloudprnt_printers`, the table this folder owns. */
export type CloudPrntPrinterRow = Selectable<CloudPrntTables['cloudprnt_printers']>;

// Compiled once (prepared): every poll, fetch and confirm runs it.
const byUsername = prepared((db, p: { username: string }) =>
  db
    .selectFrom('cloudprnt_printers')
    .selectAll()
    .where('username', '=', p.username)
    .where('revoked_at', 'is', null),
);

/** The printer these credentials name, if not revoked: one indexed read. */
export async function findPrinterByUsername(
  db: Db,
  username: string,
): Promise<CloudPrntPrinterRow | undefined> {
  return (await byUsername(db, { username }))[0];
}

export async function insertPrinter(
  db: Db,
  row: Omit<
    CloudPrntPrinterRow,
    'id' | 'capabilities' | 'job_token' | 'claims' | 'revoked_at' | 'status_at'
  >,
): Promise<void> {
  await db.insertInto('cloudprnt_printers').values(row).execute();
}

/** The claim the printer holds between its GET and its DELETE. */
export async function saveJobToken(db: Db, id: number, token: string): Promise<void> {
  await db
    .updateTable('cloudprnt_printers')
    .set({ job_token: token })
    .where('id', '=', id)
    .execute();
}

/**
 * Takes claim number `claim` for the printer, once: true when it held no claim and its last
 * was `claim - 1`, so that two GETs naming the same claim (two instances, a retry) make one.
 */
export async function takeClaimNumber(db: Db, id: number, claim: number): Promise<boolean> {
  const result = await db
    .updateTable('cloudprnt_printers')
    .set({ claims: claim })
    .where('id', '=', id)
    .where('claims', '=', claim - 1)
    .where('job_token', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The printer no longer holds the claim `token` names (a later claim's token is kept). */
export async function clearJobToken(db: Db, id: number, token: string): Promise<void> {
  await db
    .updateTable('cloudprnt_printers')
    .set({ job_token: null })
    .where('id', '=', id)
    .where('job_token', '=', token)
    .execute();
}

/** An Epson printer's status notification was heard `at` (written once per half heartbeat). */
export async function saveStatusAt(db: Db, id: number, at: string): Promise<void> {
  await db.updateTable('cloudprnt_printers').set({ status_at: at }).where('id', '=', id).execute();
}

export async function saveCapabilities(
  db: Db,
  id: number,
  capabilities: CloudPrntCapabilities,
): Promise<void> {
  await db
    .updateTable('cloudprnt_printers')
    .set({ capabilities: JSON.stringify(capabilities) })
    .where('id', '=', id)
    .execute();
}

/** Revokes the printer's credentials: its next poll is refused (401). True if it had some. */
export async function revokePrinter(
  db: Db,
  companyId: number,
  agentUuid: string,
  now: string,
): Promise<boolean> {
  const result = await db
    .updateTable('cloudprnt_printers')
    .set({ revoked_at: now })
    .where('company_id', '=', companyId)
    .where('agent_uuid', '=', agentUuid)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const capabilitiesOf = (row: CloudPrntPrinterRow): CloudPrntCapabilities =>
  JSON.parse(row.capabilities) as CloudPrntCapabilities;
