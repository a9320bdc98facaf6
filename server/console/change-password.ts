import { InvalidFields } from '../domain-errors.ts';
import type { Storage } from '../storage/database.ts';
import type { Db } from '../storage/db.ts';
import { verifyPassword } from './password-hash.ts';
import { setPassword } from './set-password.ts';

/** A signed-in user changes their password: every session of theirs ends, this one too. */
export async function changePassword(
  storage: Storage,
  db: Db,
  userId: number,
  input: { current_password: string; password: string },
): Promise<void> {
  const user = await db
    .selectFrom('console_users')
    .select('password_hash')
    .where('id', '=', userId)
    .executeTakeFirst();
  const stored = user?.password_hash;
  if (!stored || !(await verifyPassword(input.current_password, stored))) {
    throw new InvalidFields({ current_password: ['The password is incorrect.'] });
  }
  await setPassword(storage, db, userId, input.password);
}
