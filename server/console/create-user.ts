import type { ConsoleRole, ConsoleUserRecord } from '../../shared/console.ts';
import { InvalidFields } from '../domain-errors.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { toUserRecord } from './records.ts';
import { hashSecret, newSecret } from './secrets.ts';

/** How long a link to set one's password works. */
export const setupHours = 72;

export interface NewUser {
  user: ConsoleUserRecord;
  /** The one-time code of the link that sets the password (only its hash is kept). */
  setupCode: string;
  expiresAt: string;
}

/**
 * A console user of the company, without a password yet: the link sets it. An address is
 * taken only by an account of the same company (whose owner sees it in the list anyway): an
 * account of another company is not looked at, so the answer tells nothing of it, and the
 * address gets an account of this company beside it (docs/console.md, "Inviting someone").
 */
export async function createUser(
  db: Db,
  input: { companyId: number; email: string; role: ConsoleRole },
  now = new Date(),
): Promise<NewUser> {
  const taken = await db
    .selectFrom('console_users')
    .select('id')
    .where('email', '=', input.email)
    .where('company_id', '=', input.companyId)
    .executeTakeFirst();
  if (taken) throw new InvalidFields({ email: ['The email has already been taken.'] });
  const setupCode = newSecret();
  const expiresAt = isoNow(new Date(now.getTime() + setupHours * 3_600_000));
  const row = await db
    .insertInto('console_users')
    .values({
      company_id: input.companyId,
      email: input.email,
      role: input.role,
      password_hash: null,
      setup_hash: hashSecret(setupCode),
      setup_expires_at: expiresAt,
      created_at: isoNow(now),
    })
    .returning(['id', 'email', 'role', 'password_hash', 'created_at'])
    .executeTakeFirstOrThrow();
  return { user: toUserRecord(row), setupCode, expiresAt };
}
