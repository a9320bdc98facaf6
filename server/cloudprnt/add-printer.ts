import { randomUUID } from 'node:crypto';
import type { CloudPrinterKind } from '../../shared/cloudprnt.ts';
import { registerPrinterMember } from '../printing/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import type { OutboxDeps } from '../webhooks/index.ts';
import {
  hashPassword,
  newEpsonId,
  newEpsonPassword,
  newPassword,
  newUsername,
} from './credentials.ts';
import { digestHa1 } from './digest.ts';
import { insertPrinter } from './printer-rows.ts';

export interface NewCloudPrntPrinter {
  companyId: number;
  route: string;
  name?: string | undefined;
  /** `star` (CloudPRNT) unless said: `epson` (Server Direct Print). */
  kind?: CloudPrinterKind | undefined;
}

/** What to type into the printer's settings; the password is never shown again. */
export interface AddedCloudPrntPrinter {
  agentUuid: string;
  username: string;
  password: string;
}

/**
 * Each kind as a member of the company: its agent's platform, what it takes (its printer's
 * content types, which `POST /printing/jobs` checks) and what its route's templates render as.
 */
const kinds = {
  star: {
    platform: 'cloudprnt',
    noun: 'CloudPRNT printer',
    contentTypes: ['application/vnd.star.starprnt', 'text/plain'],
    language: 'starprnt',
  },
  epson: {
    platform: 'epson-sdp',
    noun: 'Epson printer',
    contentTypes: ['application/vnd.epson.epos-print+xml', 'text/plain'],
    language: 'epos',
  },
} as const;

/**
 * Makes a printer that polls ShopDesk a member of the company: a print agent of its own
 * (platform `cloudprnt`, or `epson-sdp`) serving `route` with one printer, whose templates
 * render as StarPRNT (ePOS-Print XML for Epson), and the credentials it polls with: the
 * password kept only as its hash (and, for Epson's HTTP Digest, its HA1). One commit.
 */
export function addCloudPrntPrinter(
  deps: OutboxDeps,
  db: Db,
  printer: NewCloudPrntPrinter,
  now: Date,
): Promise<AddedCloudPrntPrinter> {
  const kind = printer.kind ?? 'star';
  const { platform, noun, contentTypes, language } = kinds[kind];
  const name = printer.name ?? `${noun} (${printer.route})`;
  const epson = kind === 'epson';
  const username = epson ? newEpsonId() : newUsername();
  const password = epson ? newEpsonPassword() : newPassword();
  const added = { agentUuid: randomUUID(), username, password };
  return deps.storage.transaction(db, async (trx) => {
    await registerPrinterMember(
      deps,
      trx,
      printer.companyId,
      {
        uuid: added.agentUuid,
        name,
        kind: platform,
        model: platform,
        route: printer.route,
        printer: {
          name,
          is_default: true,
          state: 'unknown',
          reasons: [],
          accepting_jobs: null,
          message: null,
          capabilities: { content_types: [...contentTypes] },
        },
        profile: { language },
      },
      now,
    );
    await insertPrinter(trx, {
      company_id: printer.companyId,
      agent_uuid: added.agentUuid,
      route: printer.route,
      username,
      password_hash: hashPassword(password),
      kind,
      digest_ha1: epson ? digestHa1(username, password) : null,
      created_at: isoNow(now),
    });
    return added;
  });
}
