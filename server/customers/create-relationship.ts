import type { RelationshipRecord } from '../../shared/customers.ts';
import { invalidField, unknownReference } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { lockName } from '../storage/locks.ts';
import { isoNow } from '../time.ts';
import { findCustomer, readCustomer } from './read-customer.ts';
import { toRelationshipRecord } from './records.ts';

async function isDescendant(db: Db, ancestor: number, descendant: number): Promise<boolean> {
  const seen = new Set<number>([ancestor]);
  let frontier = [ancestor];
  while (frontier.length > 0) {
    const children = await db
      .selectFrom('customer_relationships')
      .select('child_id')
      .where('parent_id', 'in', frontier)
      .execute();
    frontier = [];
    for (const { child_id } of children) {
      if (child_id === descendant) return true;
      if (!seen.has(child_id)) {
        seen.add(child_id);
        frontier.push(child_id);
      }
    }
  }
  return false;
}

/** Arbitrary first key of the advisory lock that guards a company's relationship graph. */
const relationshipLock = 0x5d_0001;

/**
 * The duplicate and cycle checks read the graph, then write it: two such transactions at
 * once could each pass and together make a cycle. SQLite runs one transaction at a time on
 * its single connection; PostgreSQL takes a per-company lock until the transaction ends.
 */
const lockRelationships = (trx: Db, companyId: number) =>
  lockName(trx, relationshipLock, companyId);

export async function createRelationship(
  storage: Storage,
  db: Db,
  companyId: number,
  customerId: number,
  input: { related_customer_id: number; direction: 'parent' | 'child' },
  now: Date,
): Promise<RelationshipRecord> {
  return storage.transaction(db, async (trx) => {
    await lockRelationships(trx, companyId);
    await readCustomer(trx, companyId, customerId);
    const field = 'related_customer_id';
    if (input.related_customer_id === customerId) {
      throw invalidField(field, 'A customer cannot be related to itself.');
    }
    const related = await findCustomer(trx, companyId, input.related_customer_id);
    if (!related) throw unknownReference(field);
    const [parent, child] =
      input.direction === 'parent' ? [related.id, customerId] : [customerId, related.id];
    const existing = await trx
      .selectFrom('customer_relationships')
      .select('id')
      .where((eb) =>
        eb.or([
          eb.and([eb('parent_id', '=', parent), eb('child_id', '=', child)]),
          eb.and([eb('parent_id', '=', child), eb('child_id', '=', parent)]),
        ]),
      )
      .executeTakeFirst();
    if (existing) throw invalidField(field, 'These customers are already related.');
    if (await isDescendant(trx, child, parent)) {
      throw invalidField(field, 'This relationship would create a cycle.');
    }
    const row = await trx
      .insertInto('customer_relationships')
      .values({
        company_id: companyId,
        parent_id: parent,
        child_id: child,
        created_at: isoNow(now),
      })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
    return toRelationshipRecord(customerId, { ...row, parent_id: parent }, related);
  });
}
