import { sql } from 'kysely';
import { type Db, dialectOf } from './db.ts';

/**
 * Announces `payload` on `channel` to every process listening (PostgreSQL's NOTIFY), with
 * `db`'s commit: PostgreSQL delivers it when the transaction commits, and not at all when it
 * rolls back. On SQLite, with one server process, it does nothing: that process hears of its
 * own changes after their commit, and of other processes' through `PRAGMA data_version`.
 */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}
