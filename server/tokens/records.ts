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
  /** The routes a bound token may give its agent beyond those it serves. */
  routes: string[];
}

/** A token's row as listed. */
export function toTokenSummary(
  row: Omit<TokenSummary, 'permissions' | 'routes'> & {
    permissions: string;
    routes: string | null;
  },
): TokenSummary {
  return {
    ...row,
    permissions: JSON.parse(row.permissions) as Permission[],
    routes: row.routes === null ? [] : (JSON.parse(row.routes) as string[]),
  };
}
