import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoNow } from '../../server/time.ts';
import { postgresUrlOf, startTestServerOn } from '../helpers/databases.ts';
import { count, sentDuring } from '../helpers/pg-sent.ts';
import type { TestServer } from '../helpers/server.ts';
import { localReceivers, outboxRows } from '../webhooks/helpers.ts';
import { companyWithAgent, createJob } from './helpers.ts';

/**
 * On PostgreSQL a create is one statement (server/printing/store/postgres/create-job.ts):
 * the document, the job, its event and the NOTIFY, sent without BEGIN and COMMIT when no
 * webhook endpoint takes `print_job.created`; with one, the same statement and the outbox
 * row share a transaction. The test server runs in this process, so the statements are read
 * off `pg`'s client as they are sent.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServerOn('postgres', { config: localReceivers });
});

afterAll(async () => {
  await server?.close();
});

const setUp = (route: string) => companyWithAgent(server, route);

/** A statement of the queue's beside the create's one: a transaction, an insert, a NOTIFY of its own. */
const queueStatementsBeside = /^(begin|insert|select pg_notify(?!\('shopdesk_console'))/;

describe('a create on PostgreSQL, one statement', () => {
  it('without webhook endpoints: the document, the job, its event and the NOTIFY in one statement; the same content again shares the document', async () => {
    const { company, integrator, agent } = await setUp('documents');
    const content_base64 = Buffer.from(`same bytes ${company}`).toString('base64');
    const first = await sentDuring(() =>
      createJob(server, integrator, { route: 'documents', content_base64, title: 'Receipt 1' }),
    );
    expect(count(first.sent, /^with "new_document"/)).toBe(1);
    expect(count(first.sent, queueStatementsBeside)).toBe(0);
    // The console's live notice of the company's change, after the commit and at most one in
    // 50 ms (server/console/live-notices.ts), is the console's, not the create's.
    expect(count(first.sent, /^select pg_notify\('shopdesk_console'/)).toBeLessThanOrEqual(1);
    expect(first.result).toMatchObject({
      status: 'queued',
      route: 'documents',
      title: 'Receipt 1',
    });
    const second = await sentDuring(() =>
      createJob(server, integrator, { route: 'documents', content_base64, expires_in: 600 }),
    );
    expect(count(second.sent, /^with "new_document"/)).toBe(1);
    expect(count(second.sent, queueStatementsBeside)).toBe(0);
    expect(second.result.sha256).toBe(first.result.sha256);
    expect(Date.parse(second.result.expires_at!) - Date.parse(second.result.created_at)).toBe(
      600_000,
    );
    const documents = await server.app.services.storage.db
      .selectFrom('print_documents')
      .select('id')
      .where('company_id', '=', company)
      .execute();
    expect(documents).toHaveLength(1);
    // The agent long-polls: the create wakes it once its statement has committed.
    for (const job of [first.result, second.result]) {
      const claim = await agent.next();
      expect(claim.body.data.id).toBe(job.id);
      expect(claim.body.data.document.content_base64).toBe(content_base64);
    }
    const read = await server.request('GET', `/printing/jobs/${first.result.id}`, {
      token: integrator,
    });
    expect(read.body.data.events[0]).toMatchObject({ from: null, to: 'queued' });
    const waiting = agent.next(5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const third = await createJob(server, integrator, { route: 'documents' });
    expect((await waiting).body.data.id).toBe(third.id);
  });

  it('with an endpoint that takes print_job.created: the same statement, and its outbox row in its transaction', async () => {
    const { company, integrator } = await setUp('created-hook');
    const manager = await server.token(company, ['webhooks.manage']);
    const endpoint = await server.request('POST', '/webhooks', {
      token: manager,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['print_job.created'] },
    });
    expect(endpoint.status).toBe(201);
    const before = await outboxRows(server);
    const created = await sentDuring(() =>
      createJob(server, integrator, { route: 'created-hook' }),
    );
    expect(count(created.sent, /^with "new_document"/)).toBe(1);
    expect(count(created.sent, /^insert into "print_jobs"/)).toBe(0);
    expect(count(created.sent, /^insert into "webhook_deliveries"/)).toBe(1);
    expect(count(created.sent, /^(begin|commit)/)).toBe(2);
    expect(await outboxRows(server)).toBe(before + 1);
  });

  it('the same content stored meanwhile by another transaction: the statement writes nothing, and sent again it reads that document', async () => {
    const { company, integrator, agent } = await setUp('race');
    const content = Buffer.from(`raced bytes ${company}`);
    const sha256 = createHash('sha256').update(content).digest('hex');
    const other = new pg.Client({ connectionString: postgresUrlOf(server) });
    await other.connect();
    try {
      await other.query('begin');
      const held = await other.query(
        `insert into print_documents (company_id, sha256, size, content, created_at)
         values ($1, $2, $3, $4, $5) returning id`,
        [company, sha256, content.length, content, isoNow(new Date())],
      );
      // The create's insert waits for this transaction's row; it commits meanwhile.
      const creating = sentDuring(() =>
        createJob(server, integrator, {
          route: 'race',
          content_base64: content.toString('base64'),
        }),
      );
      await untilCreateWaits(other);
      await other.query('commit');
      const created = await creating;
      expect(count(created.sent, /^with "new_document"/)).toBe(2);
      expect(count(created.sent, /^insert into "print_jobs"/)).toBe(0);
      const job = await server.app.services.storage.db
        .selectFrom('print_jobs')
        .select('document_id')
        .where('id', '=', created.result.id)
        .executeTakeFirstOrThrow();
      expect(job.document_id).toBe(held.rows[0].id);
      const claim = await agent.next();
      expect(claim.body.data.id).toBe(created.result.id);
      expect(claim.body.data.document.content_base64).toBe(content.toString('base64'));
    } finally {
      await other.end();
    }
  });
});

/**
 * Until the create's statement waits for the row `other` holds: a backend of this database
 * waiting on a transaction's lock (pg_stat_activity; its `query` may still show the
 * connection's previous statement, so it is not matched).
 */
async function untilCreateWaits(other: pg.Client): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await other.query(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock'
         and wait_event = 'transactionid'`,
    );
    if (rows[0].n > 0) return;
    if (Date.now() > deadline) throw new Error('the create never waited for the held row');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
