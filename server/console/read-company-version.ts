import { createHmac } from 'node:crypto';
import { type PrintingService, readPrintingMarks } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { readEndpointMarks } from '../webhooks/index.ts';

/**
 * A short text that changes whenever something the console's live pages show changes:
 * a job's status, an agent's name, presence, pause, printers or routes, an agent removed
 * (printing's marks), a webhook endpoint added, changed, removed, or starting or stopping to
 * fail (webhooks' marks). The company's own rows
 * only: another company's printing never moves it.
 *
 * Opaque, and keyed (an HMAC with the server's key): the trail's ids count every company's
 * job changes, so the newest id in clear, or in a plain hash of rows the company can read
 * anyway, would tell it how busy the other companies were between two of its own changes.
 * Every instance holds the same key, so each computes the same version and a stream resumed
 * on another instance (`Last-Event-ID`) is compared rightly.
 */
export async function readCompanyVersion(
  db: Db,
  companyId: number,
  printing: Pick<PrintingService, 'queue' | 'presence'>,
  key: Buffer,
): Promise<string> {
  const shown = [
    ...(await readPrintingMarks(db, companyId, printing)),
    ...(await readEndpointMarks(db, companyId)),
  ].join('\n');
  return createHmac('sha256', key).update(shown).digest('base64url').slice(0, 22);
}
