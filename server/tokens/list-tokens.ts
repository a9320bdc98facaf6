import type { Db } from '../storage/db.ts';
import { type TokenSummary, toTokenSummary } from './records.ts';

/** The company's tokens, oldest first. */
export async function listTokens(db: Db, companyId: number): Promise<TokenSummary[]> {
  const rows = await db
    .selectFrom('tokens')
    .select([
      'id',
      'name',
      'permissions',
      'created_at',
      'expires_at',
      'revoked_at',
      'agent_uuid',
      'routes',
    ])
    .where('company_id', '=', companyId)
    .orderBy('id')
    .execute();
  return rows.map(toTokenSummary);
}
