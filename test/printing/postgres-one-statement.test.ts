import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FreshDatabase, freshDatabase } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { outboxRows } from '../webhooks/helpers.ts';
import { createJob, integratorToken, registerAgent } from './helpers.ts';

/**
 * On PostgreSQL, when no webhook endpoint takes the event, a claim (with its event and the
 * document) and a confirm (with its event) are one statement each, sent without BEGIN and
 * COMMIT (claim-next-job.ts, pg-confirm.ts): the same job, the same trail of events as the
 * transaction path, which still runs whenever an endpoint takes the event (its outbox row
 * must be written in the same transaction). The test server runs in this process, so the
 * statements are read off `pg`'s client as they are sent.
 */

let database: FreshDatabase;
let server: TestServer;

beforeAll(async () => {
  database = await freshDatabase();
  server = await startTestServer({
    database: { kind: 'postgres', url: database.url },
    config: { webhooks: { allowHttp: true, allowPrivate: true } },
  });
});

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

/** The SQL texts `pg` sent while `work` ran (other work of the server included). */
async function sentDuring<T>(work: () => Promise<T>): Promise<{ result: T; sent: string[] }> {
  const sent: string[] = [];
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  prototype.query = function spy(this: unknown, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    return original.apply(this, args);
  };
  try {
    return { result: await work(), sent };
  } finally {
    prototype.query = original;
  }
}

const count = (sent: string[], pattern: RegExp) => sent.filter((text) => pattern.test(text)).length;

async function setUp(route: string) {
  const company = await server.createCompany();
  const integrator = await integratorToken(server, company);
  const agent = await registerAgent(server, company, [route]);
  return { company, integrator, agent };
}

describe('claim and confirm on PostgreSQL, one statement each', () => {
  it('without webhook endpoints: one statement per claim and per confirm, the same trail of events', async () => {
    const { integrator, agent } = await setUp('one');
    const job = await createJob(server, integrator, { route: 'one' });
    const claim = await sentDuring(() => agent.next());
    expect(claim.result.status).toBe(200);
    expect(claim.result.body.data).toMatchObject({ id: job.id, status: 'claimed', attempts: 1 });
    expect(Buffer.from(claim.result.body.data.document.content_base64, 'base64').toString()).toBe(
      'Hello, printer\n',
    );
    expect(count(claim.sent, /^with "claimed"/)).toBe(1);
    expect(count(claim.sent, /^insert into "print_job_events"/)).toBe(0);
    expect(count(claim.sent, /^update "print_jobs"/)).toBe(0);

    const confirm = await sentDuring(() =>
      agent.call('POST', `/printing/jobs/${job.id}/confirm`, { printer: 'EPSON' }),
    );
    expect(confirm.result.status).toBe(200);
    expect(confirm.result.body.data).toMatchObject({ status: 'printed', printer: 'EPSON' });
    expect(count(confirm.sent, /^with "confirmed"/)).toBe(1);
    expect(count(confirm.sent, /^insert into "print_job_events"/)).toBe(0);
    expect(count(confirm.sent, /^update "print_jobs"/)).toBe(0);

    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    const printed = read.body.data;
    expect(printed.events).toEqual([
      { from: null, to: 'queued', agent_id: null, message: null, at: printed.created_at },
      {
        from: 'queued',
        to: 'claimed',
        agent_id: agent.uuid,
        message: null,
        at: printed.claimed_at,
      },
      {
        from: 'claimed',
        to: 'printed',
        agent_id: agent.uuid,
        message: 'printed on EPSON',
        at: printed.printed_at,
      },
    ]);
    // A repeat confirm changes nothing, and is answered by the path that reads the job.
    const again = await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {});
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(confirm.result.body.data);
  });

  it('a confirm without a printer records no message; a confirm by another agent is 409 and writes nothing', async () => {
    const { company, integrator, agent } = await setUp('two');
    const other = await registerAgent(server, company, ['elsewhere']);
    const job = await createJob(server, integrator, { route: 'two' });
    expect((await agent.next()).status).toBe(200);
    expect((await other.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(409);
    expect((await agent.call('POST', `/printing/jobs/${job.id}/confirm`, {})).status).toBe(200);
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data.events.map((event: { to: string }) => event.to)).toEqual([
      'queued',
      'claimed',
      'printed',
    ]);
    expect(read.body.data.events.at(-1)).toMatchObject({ agent_id: agent.uuid, message: null });
  });

  it('with an endpoint that takes the events: the transaction path, and their outbox rows', async () => {
    const { company, integrator, agent } = await setUp('three');
    const manager = await server.token(company, ['webhooks.manage']);
    const endpoint = await server.request('POST', '/webhooks', {
      token: manager,
      body: {
        url: 'http://127.0.0.1:9/hooks',
        events: ['print_job.claimed', 'print_job.printed'],
      },
    });
    expect(endpoint.status).toBe(201);
    const job = await createJob(server, integrator, { route: 'three' });
    const before = await outboxRows(server);
    const claim = await sentDuring(() => agent.next());
    expect(claim.result.status).toBe(200);
    expect(count(claim.sent, /^with "claimed"/)).toBe(0);
    expect(count(claim.sent, /^insert into "print_job_events"/)).toBe(1);
    const confirm = await sentDuring(() =>
      agent.call('POST', `/printing/jobs/${job.id}/confirm`, { printer: 'EPSON' }),
    );
    expect(confirm.result.status).toBe(200);
    expect(count(confirm.sent, /^with "confirmed"/)).toBe(0);
    expect(count(confirm.sent, /^insert into "print_job_events"/)).toBe(1);
    expect(await outboxRows(server)).toBe(before + 2);
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data.events.at(-1)).toMatchObject({
      from: 'claimed',
      to: 'printed',
      message: 'printed on EPSON',
    });
  });
});

describe('a create on PostgreSQL stores its document', () => {
  it('new content in the one insert that returns its id; the same content again is read, one document', async () => {
    const { company, integrator, agent } = await setUp('documents');
    const content_base64 = Buffer.from(`same bytes ${company}`).toString('base64');
    const first = await sentDuring(() =>
      createJob(server, integrator, { route: 'documents', content_base64 }),
    );
    expect(count(first.sent, /^insert into "print_documents"/)).toBe(1);
    expect(count(first.sent, /^select "id" from "print_documents"/)).toBe(0);
    const second = await sentDuring(() =>
      createJob(server, integrator, { route: 'documents', content_base64 }),
    );
    expect(count(second.sent, /^insert into "print_documents"/)).toBe(1);
    expect(count(second.sent, /^select "id" from "print_documents"/)).toBe(1);
    expect(second.result.sha256).toBe(first.result.sha256);
    const documents = await server.app.services.storage.db
      .selectFrom('print_documents')
      .select('id')
      .where('company_id', '=', company)
      .execute();
    expect(documents).toHaveLength(1);
    for (const job of [first.result, second.result]) {
      const claim = await agent.next();
      expect(claim.body.data.id).toBe(job.id);
      expect(claim.body.data.document.content_base64).toBe(content_base64);
    }
  });
});
