/**
 * Whether an error of a query means the database could not be reached (or stopped being
 * reachable mid-query), rather than that the query was wrong: the one list of what answers
 * 503 `unavailable` instead of 500 (docs/http.md, Database outages). PostgreSQL only in
 * practice; SQLite is a file and has no connection to lose.
 *
 * - socket errors of the driver: the server refuses, resets or drops the connection;
 * - SQLSTATE class 08 (connection exception), 57P01 admin_shutdown (pg_terminate_backend, a
 *   fast shutdown), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up, shutting
 *   down, in recovery), 53300 too_many_connections;
 * - pg's own words for a connection that ended under a query, or that a connect that never
 *   completed, and pg-pool's connect timeout.
 */
export function isConnectionLoss(error: unknown): boolean {
  for (let depth = 0; depth < 4 && error instanceof Error; depth++) {
    const { code } = error as { code?: unknown };
    if (typeof code === 'string') {
      if (socketCodes.has(code) || sqlStates.has(code) || code.startsWith('08')) return true;
    }
    if (lossMessages.some((pattern) => pattern.test((error as Error).message))) return true;
    // Kysely and AggregateError (a connect to several addresses) wrap the driver's error.
    const inner = (error as { cause?: unknown; errors?: unknown[] }).errors?.[0];
    error = inner ?? (error as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * PostgreSQL refused a plan it kept for a named statement, because a migration (of another
 * instance) changed what the statement returns (pg-named-statements.ts): the request that
 * met it inside a transaction is to be retried whole, and the retry is planned afresh.
 */
export function isPlanChanged(error: unknown): boolean {
  return (
    (error as { code?: unknown } | undefined)?.code === '0A000' &&
    /cached plan must not change result type/.test((error as Error).message)
  );
}

/** What answers 503 `unavailable` (retry) instead of 500: the two cases above. */
export function isTransient(error: unknown): boolean {
  return isConnectionLoss(error) || isPlanChanged(error);
}

const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

const sqlStates = new Set(['57P01', '57P02', '57P03', '53300']);

const lossMessages = [
  /^Connection terminated/, // "… unexpectedly", "… due to connection timeout"
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Client was closed and is not queryable$/,
];
