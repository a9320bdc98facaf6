import { randomUUID } from 'node:crypto';
import { registerPrinterMember } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { OutboxDeps } from '../webhooks/index.ts';
import { hashPassword, newPassword, newUsername } from './credentials.ts';
import { insertPrinter } from './printer-rows.ts';

export interface NewCloudPrntPrinter {
  companyId: number;
  route: string;
  name?: string | undefined;
}

/** What to type into the printer's CloudPRNT settings; the password is never shown again. */
export interface AddedCloudPrntPrinter {
  agentUuid: string;
  username: string;
  password: string;
}

/**
 * Makes a CloudPRNT printer a member of the company: a print agent of its own (platform
 * `cloudprnt`) serving `route` with one printer, whose templates render as StarPRNT, and the
 * credentials it polls with, the password kept only as its hash. One commit.
 */
export function addCloudPrntPrinter(
  deps: OutboxDeps,
  db: Db,
  printer: NewCloudPrntPrinter,
  now: Date,
): Promise<AddedCloudPrntPrinter> {
  const name = printer.name ?? `CloudPRNT printer (${printer.route})`;
  const added = { agentUuid: randomUUID(), username: newUsername(), password: newPassword() };
  return deps.storage.transaction(db, async (trx) => {
    await registerPrinterMember(
      deps,
      trx,
      printer.companyId,
      {
        uuid: added.agentUuid,
        name,
        kind: 'cloudprnt',
        model: 'cloudprnt',
        route: printer.route,
        printer: {
          name,
          is_default: true,
          state: 'unknown',
          reasons: [],
          accepting_jobs: null,
          message: null,
          capabilities: { content_types: ['application/vnd.star.starprnt', 'text/plain'] },
        },
        profile: { language: 'starprnt' },
      },
      now,
    );
    await insertPrinter(trx, {
      company_id: printer.companyId,
      agent_uuid: added.agentUuid,
      route: printer.route,
      username: added.username,
      password_hash: hashPassword(added.password),
      created_at: isoNow(now),
    });
    return added;
  });
}
