import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createCompany } from '../../server/companies/create-company.ts';
import type { DatabaseTarget } from '../../server/config.ts';
import { openStorage } from '../../server/storage/database.ts';
import { migrateToLatest } from '../../server/storage/migrate.ts';
import { createToken } from '../../server/tokens/create-token.ts';
import { permissions } from '../../shared/permissions.ts';
import { dialects } from '../helpers/instances.ts';
import { listenerClosed, pendingRequest } from '../helpers/pending-request.ts';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startServe } from '../helpers/serve-process.ts';
import { testSecretKey } from '../helpers/server.ts';
import { customerBody } from '../idempotency/send.ts';

/**
 * SIGTERM drains a real `shopdesk serve` (docs/scale-out.md, rolling restart): a long-poll
 * waiting for a job answers 204, a request whose body is still arriving finishes with its
 * 2xx, new connections are refused meanwhile, and the process exits 0.
 */

const dir = mkdtempSync(join(tmpdir(), 'shopdesk-drain-'));
const databases: FreshDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  rmSync(dir, { recursive: true, force: true });
});

async function target(dialect: (typeof dialects)[number]): Promise<DatabaseTarget> {
  if (dialect === 'sqlite') return { kind: 'sqlite', file: join(dir, `${randomUUID()}.sqlite`) };
  const database = await freshDatabase();
  databases.push(database);
  return { kind: 'postgres', url: database.url };
}

/** A company with an all-permissions token and an agent token, written before the server runs. */
async function seed(database: DatabaseTarget): Promise<{ admin: string; agent: string }> {
  const storage = openStorage(database);
  try {
    await migrateToLatest(storage);
    const companyId = await createCompany(storage.db, 'Drain Shop');
    const admin = await createToken(storage.db, {
      companyId,
      permissions: [...permissions],
      name: 'admin',
    });
    const agent = await createToken(storage.db, {
      companyId,
      permissions: ['printing.agent'],
      name: 'agent',
    });
    return { admin: admin.secret, agent: agent.secret };
  } finally {
    await storage.close();
  }
}

describe.each(dialects)('SIGTERM on a serving process (%s)', (dialect) => {
  it('answers the long-poll 204, finishes the request in flight, refuses new ones, exits 0', async () => {
    const database = await target(dialect);
    const { admin, agent } = await seed(database);
    const args =
      database.kind === 'sqlite' ? ['--db', database.file] : ['--database-url', database.url];
    const serve = await startServe(args, { SHOPDESK_SECRET_KEY: testSecretKey });
    try {
      const uuid = randomUUID();
      const register = await fetch(`${serve.url}/api/v1/printing/register`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agent}`,
          'content-type': 'application/json',
          'x-agent-id': uuid,
        },
        body: JSON.stringify({
          uuid,
          name: 'Till 1',
          hostname: 'till-1',
          platform: 'linux',
          version: '0.1.0',
          printers: [{ name: 'EPSON', is_default: true }],
        }),
      });
      expect(register.status).toBe(201);

      // A long-poll that waits up to 30 s for a job, and a customer whose body has not come.
      const longPoll = pendingRequest(
        serve.url,
        '/printing/jobs/next',
        agent,
        { wait: 30 },
        { headers: { 'x-agent-id': uuid } },
      );
      await longPoll.accepted;
      longPoll.finish();
      const upload = pendingRequest(
        serve.url,
        '/customers',
        admin,
        customerBody('Padaria Drenada'),
      );
      await upload.accepted;

      serve.child.kill('SIGTERM');
      // The listener closes at once: a new connection is refused.
      await listenerClosed(serve.url);

      // A connection cut instead of answered says little by itself: say what the server logged.
      const told = <T>(answer: Promise<T>) =>
        answer.catch((error: Error) => {
          throw new Error(`${error.message}; the server's log:\n${serve.stderr()}`);
        });
      const uploaded = told(upload.answer);
      uploaded.catch(() => undefined); // Awaited below; a cut before then is reported there.
      const waited = await told(longPoll.answer);
      expect(waited.status).toBe(204);
      // The request in flight still gets its body through, and its answer.
      upload.finish();
      const created = await uploaded;
      expect(created.status).toBe(201);
      expect(JSON.parse(created.body).data.name).toBe('Padaria Drenada');
      expect(await serve.exited).toBe(0);
      expect(serve.stderr()).not.toMatch(/"level":(50|60)/);
    } finally {
      serve.child.kill('SIGKILL');
    }

    // Nothing lost: the customer is there when the next instance starts.
    const next = await startServe(args, { SHOPDESK_SECRET_KEY: testSecretKey });
    try {
      const list = await fetch(`${next.url}/api/v1/customers`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(((await list.json()) as { meta: { total: number } }).meta.total).toBe(1);
    } finally {
      next.child.kill('SIGTERM');
      expect(await next.exited).toBe(0);
    }
  }, 120_000);
});
