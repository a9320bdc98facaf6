import { InvalidFields, NotFound } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { hashPassword } from './password-hash.ts';
import { hashSecret } from './secrets.ts';

/**
 * Sets a password with the one-time code of an invitation (or a reset by the CLI). The code
 * is spent, and every session of the user ends: whoever held the old password is out.
 */
export async function setPasswordWithCode(
  storage: Storage,
  db: Db,
  input: { code: string; password: string },
  now = new Date(),
): Promise<{ userId: number; email: string }> {
  const refused = () => new InvalidFields({ code: ['This link has expired or was already used.'] });
  const live = (found: { setup_expires_at: string | null } | undefined) =>
    found !== undefined &&
    (found.setup_expires_at === null || found.setup_expires_at > isoNow(now));
  const read = (from: Db) =>
    from
      .selectFrom('console_users')
      .select(['id', 'email', 'setup_expires_at'])
      .where('setup_hash', '=', hashSecret(input.code))
      .executeTakeFirst();
  // The code first: a made-up one costs a read, not a scrypt.
  if (!live(await read(db))) throw refused();
  const hashed = await hashPassword(input.password);
  return storage.transaction(db, async (trx) => {
    const user = await read(trx);
    if (!user || !live(user)) throw refused();
    await writePassword(trx, user.id, hashed);
    return { userId: user.id, email: user.email };
  });
}

/** Sets a user's password (`shopdesk user create --password-stdin`) and ends their sessions. */
export async function setPassword(
  storage: Storage,
  db: Db,
  userId: number,
  password: string,
): Promise<void> {
  const hashed = await hashPassword(password);
  await storage.transaction(db, async (trx) => {
    const found = await trx
      .selectFrom('console_users')
      .select('id')
      .where('id', '=', userId)
      .executeTakeFirst();
    if (!found) throw new NotFound('User');
    await writePassword(trx, userId, hashed);
  });
}

/** Stores a password hash for the user (the invitation used up) and ends its sessions. */
export async function writePassword(db: Db, userId: number, passwordHash: string): Promise<void> {
  await db
    .updateTable('console_users')
    .set({ password_hash: passwordHash, setup_hash: null, setup_expires_at: null })
    .where('id', '=', userId)
    .execute();
  await db.deleteFrom('console_sessions').where('user_id', '=', userId).execute();
}
