import { NotFound } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';

/** Removes the relationship between the customer and the related one, in that direction. */
export async function deleteRelationship(
  db: Db,
  companyId: number,
  customerId: number,
  direction: 'parent' | 'child',
  relatedId: number,
): Promise<void> {
  const [parent, child] =
    direction === 'parent' ? [relatedId, customerId] : [customerId, relatedId];
  const result = await db
    .deleteFrom('customer_relationships')
    .where('company_id', '=', companyId)
    .where('parent_id', '=', parent)
    .where('child_id', '=', child)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new NotFound('Relationship');
}
