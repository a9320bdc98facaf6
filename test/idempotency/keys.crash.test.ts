import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import type { DatabaseTarget, TestFault } from '../../server/config.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { permissions } from '../../shared/permissions.ts';
import { dialects } from '../helpers/instances.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { type ServeProcess, startServe as startServeProcess } from '../helpers/serve-process.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { customerBody } from './send.ts';

/**
 * `kill -9` in the middle of a keyed request (docs/http.md): the real `shopdesk serve` in a
 * child process dies at a test-only fault point (`SHOPDESK_TEST_FAULT`); a new server on the
 * same database then answers the client's retry. That one runs in this process: what it
 * finds is what the killed process left in the database, and a second `serve` to start
 * (~0.6 s of CPU each) would prove nothing more. After the commit: the retry replays the
 * stored answer and writes nothing. Before it: nothing was written, the key is free, and the
 * retry writes once.
 */

const dir = mkdtempSync(join(tmpdir(), 'shopdesk-keys-crash-'));

function databaseArgs(target: DatabaseTarget): string[] {
  return target.kind === 'sqlite' ? ['--db', target.file] : ['--database-url', target.url];
}

/** `shopdesk serve` on the target, dying at `fault`. */
function startDying(target: DatabaseTarget, fault: TestFault): Promise<ServeProcess> {
  return startServeProcess(['--rate-limit', '0', ...databaseArgs(target)], {
    SHOPDESK_TEST_FAULT: fault,
  });
}

/** The server after the crash, on the same database. */
function restart(target: DatabaseTarget): Promise<TestServer> {
  return target.kind === 'sqlite'
    ? startTestServer({ dbFile: target.file })
    : startTestServer({ database: target });
}

/** A company and an all-permissions token, written before any server runs. */
async function seed(target: DatabaseTarget): Promise<string> {
  const storage = openStorage(target);
  try {
    await migrateToLatest(storage);
    const companyId = await createCompany(storage.db, 'Crash Shop');
    const token = await createToken(storage.db, {
      companyId,
      permissions: [...permissions],
      name: 'crash',
    });
    return token.secret;
  } finally {
    await storage.close();
  }
}

function call(serve: { url: string }, token: string, method: string, path: string, key?: string) {
  return fetch(`${serve.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    ...(method === 'POST' ? { body: JSON.stringify(customerBody()) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
}

async function customerCount(serve: { url: string }, token: string): Promise<number> {
  const answer = await call(serve, token, 'GET', '/customers');
  return ((await answer.json()) as { meta: { total: number } }).meta.total;
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(dialects)('kill -9 during a keyed request, on %s', (dialect) => {
  let target: DatabaseTarget;
  let database: FreshDatabase | undefined;
  let token: string;

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      target = { kind: 'sqlite', file: join(dir, 'keys.sqlite') };
    } else {
      database = await freshDatabase();
      target = { kind: 'postgres', url: database.url };
    }
    token = await seed(target);
  });
  afterAll(() => database?.drop());

  it('after the write and its stored answer committed, before the answer: the retry replays it', async () => {
    const key = randomUUID();
    const dying = await startDying(target, 'kill-after-idempotent-commit');
    const before = await customerCount(dying, token);
    await expect(call(dying, token, 'POST', '/customers', key)).rejects.toThrow();
    expect(await dying.exited).toBe('SIGKILL');

    const serve = await restart(target);
    try {
      const retry = await call(serve, token, 'POST', '/customers', key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      const { data } = (await retry.json()) as { data: { id: number; name: string } };
      expect(data.name).toBe(customerBody().name);
      expect(retry.headers.get('location')).toMatch(new RegExp(`/customers/${data.id}$`));
      expect(await customerCount(serve, token)).toBe(before + 1);
    } finally {
      await serve.close();
    }
  });

  it('after the write, before the commit: nothing was written, and the retry writes once', async () => {
    const key = randomUUID();
    const dying = await startDying(target, 'kill-before-idempotent-commit');
    const before = await customerCount(dying, token);
    await expect(call(dying, token, 'POST', '/customers', key)).rejects.toThrow();
    expect(await dying.exited).toBe('SIGKILL');

    const serve = await restart(target);
    try {
      expect(await customerCount(serve, token)).toBe(before);
      const retry = await call(serve, token, 'POST', '/customers', key);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      const again = await call(serve, token, 'POST', '/customers', key);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await customerCount(serve, token)).toBe(before + 1);
    } finally {
      await serve.close();
    }
  });
});
