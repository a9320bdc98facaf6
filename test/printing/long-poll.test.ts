import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { waitFor } from '../helpers/wait.ts';
import { createJob, integratorToken, registerAgent, sampleText } from './helpers.ts';

describe('POST /printing/jobs/next long-poll', () => {
  let server: TestServer;
  let company: number;
  let integrator: string;
  beforeAll(async () => {
    server = await startTestServer();
    company = await server.createCompany();
    integrator = await integratorToken(server, company);
  });
  afterAll(() => server.close());

  it('a job created during the wait reaches the waiting agent at once', async () => {
    const agent = await registerAgent(server, company, ['wake']);
    const waiting = agent.next(20);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    const sent = performance.now();
    const job = await createJob(server, integrator, { route: 'wake' });
    const answer = await waiting;
    const delay = performance.now() - sent;
    console.log(
      `long-poll wake-up: job ${job.id} reached the waiting agent ${delay.toFixed(1)} ms after POST /printing/jobs was sent`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: job.id, status: 'claimed', agent_id: agent.uuid });
  });

  it('a job on another route does not wake the agent', async () => {
    const agent = await registerAgent(server, company, ['mine']);
    const waiting = agent.next(1);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    const other = await createJob(server, integrator, { route: 'not-mine' });
    const answer = await waiting;
    expect(answer.status).toBe(204);
    const read = await server.request('GET', `/printing/jobs/${other.id}`, { token: integrator });
    expect(read.body.data.status).toBe('queued');
  });

  it('a wait follows the routes the agent saves meanwhile', async () => {
    const agent = await registerAgent(server, company, ['before']);
    const waiting = agent.next(20);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    const queued = await createJob(server, integrator, { route: 'after' });
    const saved = performance.now();
    const put = await agent.call('PUT', '/printing/routes', {
      routes: [{ name: 'after', printer: 'EPSON' }],
    });
    expect(put.status).toBe(200);
    const answer = await waiting;
    // Long before the 20 s wait ends (where a last claim attempt would also find it).
    expect(performance.now() - saved).toBeLessThan(10_000);
    expect(answer.status).toBe(200);
    expect(answer.body.data.id).toBe(queued.id);
    // And it listens on the new route: a job queued there later wakes the next wait.
    const second = agent.next(10);
    await waitFor('the agent waiting again', () => server.agentsWaiting());
    const later = await createJob(server, integrator, { route: 'after' });
    expect((await second).body.data.id).toBe(later.id);
  });

  it('answers 204 when nothing came within wait', async () => {
    const agent = await registerAgent(server, company, ['quiet']);
    const started = performance.now();
    const answer = await agent.next(1);
    expect(answer.status).toBe(204);
    expect(performance.now() - started).toBeGreaterThanOrEqual(900);
  });

  it('a client that disconnects while waiting claims nothing: the job stays queued', async () => {
    const agent = await registerAgent(server, company, ['gone']);
    const controller = new AbortController();
    const waiting = fetch(`${server.api}/printing/jobs/next`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.token}`,
        'x-agent-id': agent.uuid,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ wait: 10 }),
      signal: controller.signal,
    }).catch((error: Error) => error);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    controller.abort();
    expect(await waiting).toBeInstanceOf(Error);
    await waitFor('the server seeing it gone', () => !server.agentsWaiting());
    const job = await createJob(server, integrator, { route: 'gone' });
    // Nothing may claim it meanwhile: a while for a wrong wake-up to show.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data).toMatchObject({ status: 'queued', attempts: 0, agent_id: null });
    // The next waiter gets it.
    expect((await agent.next()).body.data.id).toBe(job.id);
  });

  it('a claim made as the client goes away is undone: queued again, attempts restored', async () => {
    const agent = await registerAgent(server, company, ['undo']);
    const job = await createJob(server, integrator, { route: 'undo' });
    const printing = server.app.services.printing;
    const ref = await printing.requireAgent(server.app.services.storage.db, agent.uuid, company);
    // The signal aborts while the claim runs (nextJob has started it when abort() comes: on
    // SQLite the claim is made before nextJob first yields): it must be given back. Giving
    // it back queues the job again, which wakes the route's waiters: that proves the claim
    // was made and undone, not skipped.
    let requeued = false;
    const unsubscribe = printing.notifier.subscribe(company, ['undo'], () => {
      requeued = true;
    });
    const controller = new AbortController();
    try {
      const claiming = printing.nextJob(server.app.services.storage.db, ref, 0, {
        get aborted() {
          return controller.signal.aborted;
        },
        signal: controller.signal,
      });
      controller.abort();
      expect(await claiming).toBeUndefined();
      expect(requeued).toBe(true);
    } finally {
      unsubscribe();
    }
    const read = await server.request('GET', `/printing/jobs/${job.id}`, { token: integrator });
    expect(read.body.data).toMatchObject({
      status: 'queued',
      attempts: 0,
      agent_id: null,
      claimed_at: null,
      lease_expires_at: null,
    });
    expect(read.body.data.events.map((e: { to: string }) => e.to)).toEqual(['queued']);
  });

  it('takes the largest document within the 16 MiB body limit, and refuses a larger body with 413', async () => {
    const pdfOf = (size: number) =>
      Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(size - 9, 7)]).toString('base64');
    const big = pdfOf(11 * 1024 * 1024);
    const ok = await server.request('POST', '/printing/jobs', {
      token: integrator,
      body: { route: 'big', content_type: 'application/pdf', content_base64: big },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.size).toBe(11 * 1024 * 1024);
    const tooBig = pdfOf(13 * 1024 * 1024);
    const refused = await server.request('POST', '/printing/jobs', {
      token: integrator,
      body: { route: 'big', content_type: 'application/pdf', content_base64: tooBig },
    });
    expect(refused.status).toBe(413);
    expect(sampleText).toBeTruthy();
  });
});

describe('shutdown', () => {
  it('waiting long-polls answer 204 promptly when the server closes', async () => {
    const server = await startTestServer();
    const company = await server.createCompany();
    const agent = await registerAgent(server, company, ['closing']);
    const waiting = agent.next(30);
    await waitFor('the agent waiting', () => server.agentsWaiting());
    const started = performance.now();
    const closing = server.close();
    const answer = await waiting;
    const answeredMs = performance.now() - started;
    await closing;
    const closedMs = performance.now() - started;
    console.log(
      `shutdown: long-poll answered after ${answeredMs.toFixed(1)} ms, server closed after ${closedMs.toFixed(1)} ms`,
    );
    expect(answer.status).toBe(204);
    expect(answeredMs).toBeLessThan(2000);
    expect(closedMs).toBeLessThan(5000);
  });
});
