import type { Transaction } from 'kysely';
import { Conflict, NotFound } from '../domain-errors.ts';
import type { Database } from '../storage/schema.ts';

/** A user's role, read in the transaction that changes or removes them. */
export async function readUserRole(
  trx: Transaction<Database>,
  companyId: number,
  userId: number,
): Promise<string> {
  const user = await trx
    .selectFrom('console_users')
    .select(['id', 'role'])
    .where('company_id', '=', companyId)
    .where('id', '=', userId)
    .executeTakeFirst();
  if (!user) throw new NotFound('User');
  return user.role;
}

/**
 * Refuses, with `refusal`, when the company has one owner left: a company without an owner
 * could not manage its users any more.
 */
export async function keepLastOwner(
  trx: Transaction<Database>,
  companyId: number,
  refusal: string,
): Promise<void> {
  const owners = await trx
    .selectFrom('console_users')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('company_id', '=', companyId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  if (Number(owners.count) <= 1) throw new Conflict(refusal);
}
