import { createHash } from 'node:crypto';
import type { Db } from '../storage/db.ts';
import { tryLockName } from '../storage/locks.ts';
import { prepared } from '../storage/prepared.ts';
import type { KeyRow, StoredAnswer } from './records.ts';

/** Which key: a company's, for one operation (method and route template). */
export interface KeyScope {
  companyId: number;
  /** `POST /printing/jobs/{job}/retry`: a key used on another operation is another key. */
  operation: string;
  key: string;
}

const findStatement = prepared<{ companyId: number; operation: string; key: string }, KeyRow>(
  (db, p) =>
    db
      .selectFrom('idempotency_keys')
      .select(['id', 'fingerprint', 'status', 'body', 'headers', 'expires_at'])
      .where('company_id', '=', p.companyId)
      .where('operation', '=', p.operation)
      .where('key', '=', p.key),
);

export async function readKey(db: Db, scope: KeyScope): Promise<KeyRow | undefined> {
  const rows = await findStatement(db, scope);
  return rows[0];
}

type SaveValues = {
  companyId: number;
  operation: string;
  key: string;
  fingerprint: string;
  status: number;
  body: Buffer | null;
  headers: string;
  createdAt: string;
  expiresAt: string;
};

const saveStatement = prepared<SaveValues, { id: number }>((db, p) =>
  db
    .insertInto('idempotency_keys')
    .values({
      company_id: p.companyId,
      operation: p.operation,
      key: p.key,
      fingerprint: p.fingerprint,
      status: p.status,
      body: p.body,
      headers: p.headers,
      created_at: p.createdAt,
      expires_at: p.expiresAt,
    })
    .onConflict((conflict) => conflict.columns(['company_id', 'operation', 'key']).doNothing())
    .returning('id'),
);

/**
 * Stores the answer under its key, in the transaction of the request's write; false, with
 * nothing stored, when the key is taken (stored before, expired or not).
 */
export async function createKey(
  db: Db,
  scope: KeyScope,
  fingerprint: string,
  answer: StoredAnswer,
  createdAt: string,
  expiresAt: string,
): Promise<boolean> {
  const rows = await saveStatement(db, {
    ...scope,
    fingerprint,
    status: answer.status,
    body: answer.body,
    headers: JSON.stringify(answer.headers),
    createdAt,
    expiresAt,
  });
  return rows.length > 0;
}

export async function deleteKey(db: Db, id: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('id', '=', id).execute();
}

/**
 * Takes, for the rest of the transaction, the lock of this key, or answers false at once
 * when another transaction (of any instance) holds it (PostgreSQL's advisory lock; SQLite
 * has one server process, whose set of running keys is enough). The lock's name is the
 * first 64 bits of sha256 of the scope.
 */
export function tryLockKey(db: Db, scope: KeyScope): Promise<boolean> {
  const name = createHash('sha256')
    .update(`${scope.companyId}\n${scope.operation}\n${scope.key}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
  return tryLockName(db, name);
}
