import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { spendVerification, verifyPassword } from './password-hash.ts';
import { hashSecret, newSecret } from './secrets.ts';

/** How long a session lasts from sign-in; signing in again starts a new one. */
export const sessionHours = 12;

export interface NewSession {
  /** The cookie's value (only its hash is stored). */
  secret: string;
  userId: number;
  expiresAt: string;
}

/**
 * Checks an address and password and opens a session. Null for an unknown address, an
 * account without a password yet, or a wrong password, alike and in about the same time.
 */
export async function signIn(
  db: Db,
  input: { email: string; password: string },
  now = new Date(),
): Promise<NewSession | null> {
  const user = await db
    .selectFrom('console_users')
    .select(['id', 'company_id', 'password_hash'])
    .where('email', '=', input.email)
    .executeTakeFirst();
  if (!user?.password_hash) {
    await spendVerification(input.password);
    return null;
  }
  if (!(await verifyPassword(input.password, user.password_hash))) return null;
  // The user's sessions that have run out go now: the table holds only live ones and a
  // few stale ones of people who stopped coming.
  await db
    .deleteFrom('console_sessions')
    .where('user_id', '=', user.id)
    .where('expires_at', '<=', isoNow(now))
    .execute();
  const secret = newSecret();
  const expiresAt = isoNow(new Date(now.getTime() + sessionHours * 3_600_000));
  await db
    .insertInto('console_sessions')
    .values({
      user_id: user.id,
      company_id: user.company_id,
      hash: hashSecret(secret),
      created_at: isoNow(now),
      expires_at: expiresAt,
    })
    .execute();
  return { secret, userId: user.id, expiresAt };
}
