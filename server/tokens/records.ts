import type { Permission } from '../../shared/permissions.ts';

/** A token as `shopdesk token list` shows it (never its secret nor its hash). */
export interface TokenSummary {
  id: number;
  name: string;
  permissions: Permission[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  agent_uuid: string | null;
}

/** A token's row as listed. */
export function toTokenSummary(
  row: Omit<TokenSummary, 'permissions'> & { permissions: string },
): TokenSummary {
  return { ...row, permissions: JSON.parse(row.permissions) as Permission[] };
}
