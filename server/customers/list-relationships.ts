import type { RelationshipRecord } from '../../shared/customers.ts';
import type { PageQuery } from '../../shared/http.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf } from '../storage/pages.ts';
import { readCustomer } from './read-customer.ts';
import { toRelationshipRecord } from './records.ts';

/** The customer's relationships, both directions, oldest first, paginated. */
export async function listRelationships(
  db: Db,
  companyId: number,
  customerId: number,
  page: PageQuery,
): Promise<{ rows: RelationshipRecord[]; total: number }> {
  await readCustomer(db, companyId, customerId);
  const rows = await db
    .selectFrom('customer_relationships as r')
    .innerJoin('customers as c', (join) =>
      join.on((eb) =>
        eb.or([
          eb.and([eb('r.parent_id', '=', customerId), eb('c.id', '=', eb.ref('r.child_id'))]),
          eb.and([eb('r.child_id', '=', customerId), eb('c.id', '=', eb.ref('r.parent_id'))]),
        ]),
      ),
    )
    .select([
      'r.id',
      'r.parent_id',
      'r.child_id',
      'r.created_at',
      'c.id as related_id',
      'c.code',
      'c.name',
    ])
    .where('r.company_id', '=', companyId)
    .orderBy('r.id')
    .execute();
  const start = offsetOf(page);
  const records = rows
    .slice(start, start + page.per_page)
    .map((row) =>
      toRelationshipRecord(customerId, row, { id: row.related_id, code: row.code, name: row.name }),
    );
  return { rows: records, total: rows.length };
}

/** Whether `descendant` already sits below `ancestor` (so linking them upwards would loop). */
