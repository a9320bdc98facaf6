import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Storage } from '../storage/database.ts';
import { pendingMigrations } from '../storage/migrate.ts';

/** How long the database may take to answer a readiness probe before it counts as down. */
export const readinessTimeoutMs = 2000;

/** Why an instance should not be sent requests, in words for the operator; or none. */
export async function notReadyReason(storage: Storage, log: Logger): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('no answer in time')), readinessTimeoutMs);
  });
  try {
    await Promise.race([sql`select 1`.execute(storage.db), late]);
    const pending = await Promise.race([pendingMigrations(storage), late]);
    if (pending.length > 0) {
      return `The database schema is not current: migrations ${pending.join(', ')} have not run.`;
    }
    return undefined;
  } catch (error) {
    // The cause goes to the log (it may name hosts); the probe gets the plain fact.
    log.warn(
      { err: { message: (error as Error).message } },
      'readiness: the database does not answer',
    );
    return 'The database does not answer.';
  } finally {
    clearTimeout(timer);
  }
}
