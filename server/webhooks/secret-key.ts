import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type DatabaseTarget, decodeSecretKey } from '../config.ts';

/** Where the key is generated when `SHOPDESK_SECRET_KEY` is not set (docs/webhooks.md). */
export function secretKeyFileOf(database: DatabaseTarget): string | undefined {
  if (database.kind === 'postgres') return join('data', 'secret.key');
  if (database.file === ':memory:') return undefined;
  return join(dirname(database.file), 'secret.key');
}

export interface ResolvedKey {
  key: Buffer;
  /** Where it came from, for the start-up log: never the key itself. */
  source: 'environment' | 'generated' | 'file' | 'memory';
  file?: string;
}

/**
 * The server's secret key: `SHOPDESK_SECRET_KEY` when set (parsed in config.ts); otherwise
 * the file `secret.key` in the data folder (beside the SQLite file; `./data` with
 * PostgreSQL), created with a new random key on first start. Created exclusively (`wx`),
 * so two processes starting at once (the server and the CLI) end with the same key: the
 * loser reads the winner's file. An in-memory database gets a key that lives as long.
 */
export function resolveSecretKey(
  fromEnvironment: string | undefined,
  database: DatabaseTarget,
): ResolvedKey {
  if (fromEnvironment !== undefined) {
    return { key: decodeSecretKey(fromEnvironment), source: 'environment' };
  }
  const file = secretKeyFileOf(database);
  if (!file) return { key: randomBytes(32), source: 'memory' };
  mkdirSync(dirname(file), { recursive: true });
  try {
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    return { key, source: 'generated', file };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const text = readFileSync(file, 'utf8').trim();
  try {
    return { key: decodeSecretKey(text), source: 'file', file };
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}
