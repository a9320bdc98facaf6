import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
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

interface Pending {
  /** Resolves once the server has read the headers (it answered `100 Continue`). */
  accepted: Promise<void>;
  /** Sends the body and ends the request. */
  finish(): void;
  answer: Promise<{ status: number; body: string }>;
}

/**
 * A JSON request sent with `Expect: 100-continue`: the body waits for the server's `100
 * Continue`, which proves the server holds the request, so the test knows it is in flight.
 */
function pending(url: string, path: string, token: string, body: unknown, headers = {}): Pending {
  const text = JSON.stringify(body);
  const req = httpRequest(`${url}/api/v1${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      expect: '100-continue',
      ...headers,
    },
  });
  const accepted = new Promise<void>((done) => req.once('continue', () => done()));
  const answer = new Promise<{ status: number; body: string }>((done, fail) => {
    req.once('response', (response: IncomingMessage) => {
      let received = '';
      response.on('data', (chunk: Buffer) => {
        received += chunk.toString();
      });
      response.on('end', () => done({ status: response.statusCode ?? 0, body: received }));
    });
    req.once('error', fail);
  });
  req.flushHeaders();
  return { accepted, finish: () => req.end(text), answer };
}

/** Whether a new TCP connection to the server's port is refused. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((done) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      done(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
  });
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
      const longPoll = pending(
        serve.url,
        '/printing/jobs/next',
        agent,
        { wait: 30 },
        {
          'x-agent-id': uuid,
        },
      );
      await longPoll.accepted;
      longPoll.finish();
      const upload = pending(serve.url, '/customers', admin, customerBody('Padaria Drenada'));
      await upload.accepted;

      serve.child.kill('SIGTERM');
      // The listener closes at once: poll until a new connection is refused.
      while (!(await refused(serve.url))) await new Promise((done) => setTimeout(done, 10));

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
