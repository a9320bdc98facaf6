import type { ConsoleRole } from '../../shared/console.ts';
import { readCompanyName } from '../companies/index.ts';
import type { Db } from '../storage/db.ts';
import { isoNow } from '../time.ts';
import { hashSecret } from './secrets.ts';

export interface Session {
  id: number;
  userId: number;
  email: string;
  role: ConsoleRole;
  companyId: number;
  companyName: string;
  createdAt: string;
}

/**
 * The live session of a cookie, or null. Read from the database on every request, never
 * cached: a sign-out, a password change or a removal on any instance counts from the next
 * request (one indexed read; the console's traffic is people, not machines).
 */
export async function readSession(
  db: Db,
  secret: string,
  now = new Date(),
): Promise<Session | null> {
  const row = await db
    .selectFrom('console_sessions')
    .innerJoin('console_users', 'console_users.id', 'console_sessions.user_id')
    .select([
      'console_sessions.id',
      'console_sessions.user_id',
      'console_sessions.expires_at',
      'console_sessions.created_at',
      'console_users.email',
      'console_users.role',
      'console_sessions.company_id',
    ])
    .where('console_sessions.hash', '=', hashSecret(secret))
    .executeTakeFirst();
  if (!row || row.expires_at <= isoNow(now)) return null;
  const companyName = await readCompanyName(db, row.company_id);
  if (companyName === undefined) return null;
  return {
    id: row.id,
    userId: row.user_id,
    email: row.email,
    role: row.role as ConsoleRole,
    companyId: row.company_id,
    companyName,
    createdAt: row.created_at,
  };
}
