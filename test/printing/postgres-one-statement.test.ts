import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRef } from '../../server/printing/agents/agent-identities.ts';
import { claimJob } from '../../server/printing/jobs/claim-job.ts';
import { isoNow } from '../../server/time.ts';
import type { QueuedJobRecord } from '../../shared/printing.ts';
import { postgresUrlOf, startTestServerOn } from '../helpers/databases.ts';
import { count, sentDuring } from '../helpers/pg-sent.ts';
import type { TestServer } from '../helpers/server.ts';
import { localReceivers, outboxRows } from '../webhooks/helpers.ts';
import { companyWithAgent, createJob, registerAgent } from './helpers.ts';

/**
 * On PostgreSQL a claim (with its event and the document) and a confirm (with its event)
 * are one statement each (the PostgreSQL store, server/printing/store/postgres/), sent
 * without BEGIN and COMMIT when no webhook endpoint takes the event; with one, the same
 * statement and its outbox row share a transaction. The test server runs in this process,
 * so the statements are read off `pg`'s client as they are sent.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServerOn('postgres', { config: localReceivers });
});

afterAll(async () => {
  await server?.close();
});

const setUp = (route: string) => companyWithAgent(server, route);

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
    // A repeat confirm changes nothing, and is answered from the job as read.
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

  it('with an endpoint that takes the events: the same statements, each with its outbox row in its transaction', async () => {
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
    expect(count(claim.sent, /^with "claimed"/)).toBe(1);
    expect(count(claim.sent, /^insert into "print_job_events"/)).toBe(0);
    expect(count(claim.sent, /^insert into "webhook_deliveries"/)).toBe(1);
    expect(count(claim.sent, /^(begin|commit)/)).toBe(2);
    const confirm = await sentDuring(() =>
      agent.call('POST', `/printing/jobs/${job.id}/confirm`, { printer: 'EPSON' }),
    );
    expect(confirm.result.status).toBe(200);
    expect(count(confirm.sent, /^with "confirmed"/)).toBe(1);
    expect(count(confirm.sent, /^insert into "print_job_events"/)).toBe(0);
    expect(count(confirm.sent, /^insert into "webhook_deliveries"/)).toBe(1);
    expect(await outboxRows(server)).toBe(before + 2);
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data.events.at(-1)).toMatchObject({
      from: 'claimed',
      to: 'printed',
      message: 'printed on EPSON',
    });
  });
});

describe('a fail and a cancel on PostgreSQL, one statement each', () => {
  it('the UPDATE and its event in one statement, sent without BEGIN and COMMIT; the same trail as SQLite', async () => {
    const { integrator, agent } = await setUp('fail-cancel');
    const failing = await createJob(server, integrator, { route: 'fail-cancel' });
    expect((await agent.next()).status).toBe(200);
    const failed = await sentDuring(() =>
      agent.call('POST', `/printing/jobs/${failing.id}/error`, { message: 'Paper jam' }),
    );
    expect(failed.result.status).toBe(200);
    expect(count(failed.sent, /^with "failed"/)).toBe(1);
    expect(count(failed.sent, /^(begin|commit|insert into "print_job_events")/)).toBe(0);
    const queued = await createJob(server, integrator, { route: 'fail-cancel' });
    const cancelled = await sentDuring(() =>
      server.request('POST', `/printing/jobs/${queued.id}/cancel`, { token: integrator }),
    );
    expect(cancelled.result.status).toBe(200);
    expect(count(cancelled.sent, /^with "cancelled"/)).toBe(1);
    expect(count(cancelled.sent, /^insert into "print_job_events"/)).toBe(0);
    const trail = async (id: number) =>
      (await server.request('GET', `/printing/jobs/${id}`, { token: integrator })).body.data.events;
    expect((await trail(failing.id)).at(-1)).toMatchObject({
      from: 'claimed',
      to: 'failed',
      agent_id: agent.uuid,
      message: 'Paper jam',
    });
    expect((await trail(queued.id)).at(-1)).toMatchObject({
      from: 'queued',
      to: 'cancelled',
      agent_id: null,
      message: 'cancel',
    });
  });
});

describe('the confirms of one turn on PostgreSQL, one statement', () => {
  it('each confirm gets its own job; a repeat and a non-holder in the same burst change nothing', async () => {
    const { company, integrator, agent } = await setUp('burst');
    const second = await registerAgent(server, company, ['burst']);
    const [first, other, third] = [
      await createJob(server, integrator, { route: 'burst' }),
      await createJob(server, integrator, { route: 'burst' }),
      await createJob(server, integrator, { route: 'burst' }),
    ];
    expect((await agent.next()).body.data.id).toBe(first!.id);
    expect((await second.next()).body.data.id).toBe(other!.id);
    expect((await agent.next()).body.data.id).toBe(third!.id);

    const db = server.app.services.storage.db;
    const { store } = server.app.services.printing;
    const now = isoNow();
    const confirm = (jobId: number, agentUuid: string, printer: string | null) =>
      store.confirm(db, { jobId, companyId: company, agentUuid, printer, now });
    // All called in one turn: one batch.
    const burst = await sentDuring(() =>
      Promise.all([
        confirm(first!.id, agent.uuid, 'EPSON'),
        confirm(other!.id, second.uuid, null),
        confirm(third!.id, agent.uuid, null),
        confirm(third!.id, agent.uuid, null),
        confirm(first!.id, second.uuid, null),
      ]),
    );
    expect(count(burst.sent, /^with "input"/)).toBe(1);
    expect(count(burst.sent, /^with "confirmed"/)).toBe(0);
    const [mine, theirs, once, again, notHolder] = burst.result;
    expect(mine).toMatchObject({ id: first!.id, status: 'printed', printer: 'EPSON' });
    expect(theirs).toMatchObject({ id: other!.id, status: 'printed', agent_id: second.uuid });
    expect(once).toMatchObject({ id: third!.id, status: 'printed', printer: null });
    expect(again).toEqual(once);
    expect(notHolder).toBeUndefined();

    const trail = async (id: number) =>
      (await server.request('GET', `/printing/jobs/${id}`, { token: integrator })).body.data.events;
    expect((await trail(first!.id)).at(-1)).toMatchObject({
      from: 'claimed',
      to: 'printed',
      agent_id: agent.uuid,
      message: 'printed on EPSON',
      at: now,
    });
    expect((await trail(other!.id)).at(-1)).toMatchObject({
      to: 'printed',
      agent_id: second.uuid,
      message: null,
    });
    // The job sent twice printed once: one event.
    expect((await trail(third!.id)).map((event: { to: string }) => event.to)).toEqual([
      'queued',
      'claimed',
      'printed',
    ]);
  });

  it('a confirm alone runs the one-job statement', async () => {
    const { company, integrator, agent } = await setUp('alone');
    const job = await createJob(server, integrator, { route: 'alone' });
    expect((await agent.next()).status).toBe(200);
    const values = { jobId: job.id, companyId: company, agentUuid: agent.uuid, printer: null };
    const { store } = server.app.services.printing;
    const alone = await sentDuring(() =>
      store.confirm(server.app.services.storage.db, { ...values, now: isoNow() }),
    );
    expect(count(alone.sent, /^with "confirmed"/)).toBe(1);
    expect(count(alone.sent, /^with "input"/)).toBe(0);
    expect(alone.result).toMatchObject({ id: job.id, status: 'printed' });
  });

  it('confirms sent together over HTTP: each agent its own job, each printed once', async () => {
    const { company, integrator } = await setUp('together');
    const agents = await Promise.all(
      Array.from({ length: 6 }, () => registerAgent(server, company, ['together'])),
    );
    for (let i = 0; i < agents.length; i++)
      await createJob(server, integrator, { route: 'together' });
    const held: number[] = [];
    for (const agent of agents) held.push((await agent.next()).body.data.id as number);
    const answers = await Promise.all(
      agents.map((agent, i) =>
        agent.call('POST', `/printing/jobs/${held[i]}/confirm`, { printer: `P${i}` }),
      ),
    );
    answers.forEach((answer, i) => {
      expect(answer.status).toBe(200);
      expect(answer.body.data).toMatchObject({
        id: held[i],
        status: 'printed',
        agent_id: agents[i]!.uuid,
        printer: `P${i}`,
      });
    });
    const events = await server.app.services.storage.db
      .selectFrom('print_job_events')
      .select(['job_id', 'message'])
      .where('to_status', '=', 'printed')
      .where('job_id', 'in', held)
      .execute();
    expect(events.map((event) => event.message).sort()).toEqual(
      agents.map((_, i) => `printed on P${i}`).sort(),
    );
  });
});

/** The agents as the claim takes them (row id, company, uuid). */
const refsOf = (company: number, uuids: string[]): Promise<AgentRef[]> =>
  Promise.all(
    uuids.map((uuid) =>
      server.app.services.printing.requireAgent(server.app.services.storage.db, uuid, company),
    ),
  );

/** Claims for all `agents` in one turn of the event loop, as one burst. */
const claimTogether = (agents: AgentRef[]) =>
  sentDuring(() =>
    Promise.all(
      agents.map((agent) =>
        claimJob(
          server.app.services.printing.queue,
          server.app.services.storage.db,
          agent,
          new Date(),
          60,
        ),
      ),
    ),
  );

const contentOf = (claim: { job: { document: { content_base64: string } } } | undefined) =>
  claim && Buffer.from(claim.job.document.content_base64, 'base64').toString();

describe('the claims of one turn on PostgreSQL, one statement', () => {
  it('each agent its own job, in queue order, with its event and document; an agent with nothing queued gets none', async () => {
    const { company, integrator, agent } = await setUp('many');
    const others = [
      await registerAgent(server, company, ['many']),
      await registerAgent(server, company, ['many']),
    ];
    const idle = await registerAgent(server, company, ['quiet']);
    const jobs: QueuedJobRecord[] = [];
    for (let i = 0; i < 3; i++) {
      const content_base64 = Buffer.from(`job ${i}`).toString('base64');
      jobs.push(await createJob(server, integrator, { route: 'many', content_base64 }));
    }
    const refs = await refsOf(company, [
      agent.uuid,
      ...others.map((other) => other.uuid),
      idle.uuid,
    ]);
    const burst = await claimTogether(refs);
    expect(count(burst.sent, /^with "agents"/)).toBe(1);
    // Nobody missed, and the idle agent is not tried again alone.
    expect(count(burst.sent, /^with "claimed"/)).toBe(0);
    expect(burst.result.map((claim) => claim?.job.id)).toEqual([
      ...jobs.map((job) => job.id),
      undefined,
    ]);
    expect(burst.result.map(contentOf)).toEqual(['job 0', 'job 1', 'job 2', undefined]);
    burst.result.slice(0, 3).forEach((claim, i) => {
      expect(claim!.job).toMatchObject({ status: 'claimed', agent_id: refs[i]!.uuid, attempts: 1 });
    });
    const events = await server.app.services.storage.db
      .selectFrom('print_job_events')
      .select(['id', 'job_id', 'agent_id'])
      .where('to_status', '=', 'claimed')
      .where(
        'job_id',
        'in',
        jobs.map((job) => job.id),
      )
      .orderBy('job_id')
      .execute();
    expect(events).toEqual(
      burst.result.slice(0, 3).map((claim, i) => ({
        id: claim!.eventId,
        job_id: jobs[i]!.id,
        agent_id: refs[i]!.uuid,
      })),
    );
  });

  it('passes over jobs another transaction holds; an agent left without a job tries alone', async () => {
    const { company, integrator, agent } = await setUp('held');
    const second = await registerAgent(server, company, ['held']);
    const third = await registerAgent(server, company, ['held']);
    const jobs: QueuedJobRecord[] = [];
    for (let i = 0; i < 3; i++) jobs.push(await createJob(server, integrator, { route: 'held' }));
    const holder = new pg.Client({ connectionString: postgresUrlOf(server) });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from print_jobs where id = $1 for update', [jobs[0]!.id]);
      const burst = await claimTogether(
        await refsOf(company, [agent.uuid, second.uuid, third.uuid]),
      );
      // The first job is held: the first two agents take the next two, the third finds
      // nothing free on its route and tries alone (which finds nothing either).
      expect(burst.result.map((claim) => claim?.job.id)).toEqual([
        jobs[1]!.id,
        jobs[2]!.id,
        undefined,
      ]);
      expect(count(burst.sent, /^with "agents"/)).toBe(1);
      expect(count(burst.sent, /^with "claimed"/)).toBe(1);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    const [left] = await claimTogether(await refsOf(company, [third.uuid])).then(
      (burst) => burst.result,
    );
    expect(left?.job.id).toBe(jobs[0]!.id);
  });
});
