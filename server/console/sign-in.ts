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
 *
 * An address may have an account in several companies (one each): the password says which.
 * Each account's hash is checked, side by side (Node's scrypt runs on its thread pool, four
 * threads by default), so that an address with two accounts takes about the time of one.
 * When the same password opens several, the oldest account is opened: a person who has
 * accounts in two companies gives each its own password.
 */
export async function signIn(
  db: Db,
  input: { email: string; password: string },
  now = new Date(),
): Promise<NewSession | null> {
  const accounts = (
    await db
      .selectFrom('console_users')
      .select(['id', 'company_id', 'password_hash'])
      .where('email', '=', input.email)
      .orderBy('id')
      .execute()
  ).filter((account) => account.password_hash !== null);
  if (accounts.length === 0) {
    await spendVerification(input.password);
    return null;
  }
  const opens = await Promise.all(
    accounts.map((account) => verifyPassword(input.password, account.password_hash!)),
  );
  const user = accounts[opens.indexOf(true)];
  if (!user) return null;
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
