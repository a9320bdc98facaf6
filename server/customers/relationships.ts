import { sql } from 'kysely';
import type { RelationshipRecord } from '../../shared/customers.ts';
import type { PageQuery } from '../../shared/http.ts';
import { invalidField, NotFound, unknownReference } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { offsetOf } from '../storage/pages.ts';
import { isoNow } from '../time.ts';
import { findCustomer, getCustomer } from './read-customers.ts';

/** One page of the customer's links, oldest first (a customer has few: paged in memory). */
export async function listRelationships(
  db: Db,
  companyId: number,
  customerId: number,
  page: PageQuery,
): Promise<{ rows: RelationshipRecord[]; total: number }> {
  await getCustomer(db, companyId, customerId);
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
  const records = rows.slice(start, start + page.per_page).map(
    (row): RelationshipRecord => ({
      id: row.id,
      customer_id: customerId,
      related_customer_id: row.related_id,
      direction: row.parent_id === customerId ? 'child' : 'parent',
      related_customer: { id: row.related_id, code: row.code, name: row.name },
      created_at: row.created_at,
    }),
  );
  return { rows: records, total: rows.length };
}

/** Whether `descendant` already sits below `ancestor` (so linking them upwards would loop). */
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
async function lockRelationships(storage: Storage, trx: Db, companyId: number): Promise<void> {
  if (storage.dialect !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(${relationshipLock}, ${companyId})`.execute(trx);
}

export async function addRelationship(
  storage: Storage,
  companyId: number,
  customerId: number,
  input: { related_customer_id: number; direction: 'parent' | 'child' },
  now: Date,
): Promise<RelationshipRecord> {
  return storage.transaction(async (trx) => {
    await lockRelationships(storage, trx, companyId);
    await getCustomer(trx, companyId, customerId);
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
    return {
      id: row.id,
      customer_id: customerId,
      related_customer_id: related.id,
      direction: input.direction,
      related_customer: { id: related.id, code: related.code, name: related.name },
      created_at: row.created_at,
    };
  });
}

export async function removeRelationship(
  storage: Storage,
  companyId: number,
  customerId: number,
  direction: 'parent' | 'child',
  relatedId: number,
): Promise<void> {
  const [parent, child] =
    direction === 'parent' ? [relatedId, customerId] : [customerId, relatedId];
  const result = await storage.db
    .deleteFrom('customer_relationships')
    .where('company_id', '=', companyId)
    .where('parent_id', '=', parent)
    .where('child_id', '=', child)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw new NotFound('Relationship');
}
