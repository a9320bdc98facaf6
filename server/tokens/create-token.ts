import type { Permission } from '../../shared/permissions.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { hashToken, newTokenSecret } from './token-secrets.ts';

export interface IssuedToken {
  id: number;
  secret: string;
}

/** A new token of the company; its secret is answered this once (only its hash is kept). */
export async function createToken(
  db: Db,
  input: {
    companyId: number;
    permissions: Permission[];
    name: string;
    expiresInDays?: number;
    /** Binds the token to the print agent of this uuid (docs/security.md). */
    agentUuid?: string;
    /** The routes a bound token may add to its agent, beyond those it serves. */
    routes?: string[];
  },
  now = new Date(),
): Promise<IssuedToken> {
  const secret = newTokenSecret();
  const expiresAt =
    input.expiresInDays === undefined
      ? null
      : isoNow(new Date(now.getTime() + input.expiresInDays * 86_400_000));
  const row = await db
    .insertInto('tokens')
    .values({
      company_id: input.companyId,
      name: input.name,
      hash: hashToken(secret),
      permissions: JSON.stringify(input.permissions),
      created_at: isoNow(now),
      expires_at: expiresAt,
      revoked_at: null,
      agent_uuid: input.agentUuid?.toLowerCase() ?? null,
      routes: input.routes && input.routes.length > 0 ? JSON.stringify(input.routes) : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, secret };
}
