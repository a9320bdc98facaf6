import { hash, randomBytes } from 'node:crypto';
import { permissions as allPermissions, type Permission } from '../../shared/permissions.ts';
import type { Storage } from '../storage/database.ts';
import { isoNow } from '../time.ts';

/** `sd_` then 32 random bytes: long enough that only a hash needs to be kept. */
export function newTokenSecret(): string {
  return `sd_${randomBytes(32).toString('base64url')}`;
}

/** Runs on every request: the one-shot `hash` costs a quarter of a `createHash` object's. */
export function hashToken(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export interface IssuedToken {
  id: number;
  secret: string;
}

export async function issueToken(
  storage: Storage,
  input: {
    companyId: number;
    permissions: Permission[];
    name: string;
    expiresInDays?: number;
    /** Binds the token to the print agent of this uuid (docs/security.md). */
    agentUuid?: string;
  },
  now = new Date(),
): Promise<IssuedToken> {
  const secret = newTokenSecret();
  const expiresAt =
    input.expiresInDays === undefined
      ? null
      : isoNow(new Date(now.getTime() + input.expiresInDays * 86_400_000));
  const row = await storage.db
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
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, secret };
}

export interface TokenSummary {
  id: number;
  name: string;
  permissions: Permission[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  agent_uuid: string | null;
}

export async function listTokens(storage: Storage, companyId: number): Promise<TokenSummary[]> {
  const rows = await storage.db
    .selectFrom('tokens')
    .select(['id', 'name', 'permissions', 'created_at', 'expires_at', 'revoked_at', 'agent_uuid'])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ ...row, permissions: JSON.parse(row.permissions) }));
}

/** Revokes at once: the server's token cache notices the write (see authenticate.ts). */
export async function revokeToken(
  storage: Storage,
  id: number,
  now = new Date(),
): Promise<boolean> {
  const result = await storage.db
    .updateTable('tokens')
    .set({ revoked_at: isoNow(now) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Parses `*` or a comma-separated list; unknown names are reported, not ignored. */
export function parsePermissionList(list: string): Permission[] {
  const trimmed = list.trim();
  if (trimmed === '*') return [...allPermissions];
  const names = trimmed
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error('--permissions needs at least one permission, or *');
  const unknown = names.filter((name) => !(allPermissions as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown permission ${unknown.join(', ')}; known: ${allPermissions.join(', ')}`,
    );
  }
  return [...new Set(names)] as Permission[];
}
