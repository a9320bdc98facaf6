import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { lockRows } from '../storage/locks.ts';
import type { EndpointRow } from './records.ts';

/**
 * The company's endpoint, or 404. `lock`: held until `db`'s transaction ends, so that two
 * changes of one endpoint (through two instances) run one after the other.
 */
export async function readEndpointRow(
  db: Db,
  companyId: number,
  id: number,
  options: { lock?: boolean } = {},
): Promise<EndpointRow> {
  const query = db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id);
  const row = await (options.lock ? lockRows(db, query, 'update') : query).executeTakeFirst();
  if (!row) throw new NotFound('Webhook');
  return row;
}
